import { z } from "zod";

/*
 * MCP server configuration in VS Code's own `.vscode/mcp.json` format (`servers`,
 * `inputs`), which the `downcity.mcp.servers` setting and the CLI's user file share.
 * Values may hold `${input:id}`, `${env:NAME}` and `${workspaceFolder}`; they are
 * substituted only when a server starts, so a config is shown as written.
 */

const StringMap = z.record(z.string(), z.string());

export const StdioServerConfig = z.object({
  type: z.literal("stdio").optional(),
  command: z.string().min(1, "command must not be empty"),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.union([z.string(), z.null()])).optional(),
  cwd: z.string().optional(),
  envFile: z.string().optional(),
});

export const HttpServerConfig = z.object({
  type: z.enum(["http", "sse"]).optional(),
  url: z.string().min(1, "url must not be empty"),
  headers: StringMap.optional(),
});

/** One server: `command` means stdio, `url` means HTTP (Streamable HTTP, falling back to SSE). */
export const McpServerConfig = z.union([StdioServerConfig, HttpServerConfig]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;
export type StdioServerConfig = z.infer<typeof StdioServerConfig>;
export type HttpServerConfig = z.infer<typeof HttpServerConfig>;

export const McpInput = z.object({
  id: z.string().min(1),
  type: z.enum(["promptString", "pickString"]).default("promptString"),
  description: z.string().optional(),
  password: z.boolean().optional(),
  default: z.string().optional(),
  options: z.array(z.string()).optional(),
});
export type McpInput = z.infer<typeof McpInput>;

export const McpConfigFile = z.object({
  servers: z.record(z.string(), z.unknown()).default({}),
  inputs: z.array(McpInput).optional(),
});

/** Where a config came from: only the user's own (user settings, the XDG file) is trusted without consent. */
export type McpSourceKind = "user" | "workspace";

export interface McpSource {
  kind: McpSourceKind;
  /** Shown to the user: ".vscode/mcp.json", "settings (downcity.mcp.servers)". */
  label: string;
}

export interface McpServerEntry {
  name: string;
  config: McpServerConfig;
  source: McpSource;
  /** The inputs the source declares (for `${input:id}`). */
  inputs: readonly McpInput[];
}

export interface McpConfigProblem {
  source: McpSource;
  server?: string;
  message: string;
}

export interface ParsedMcpConfig {
  servers: McpServerEntry[];
  problems: McpConfigProblem[];
}

/**
 * Reads one config (already JSON-parsed). A broken server entry is reported and skipped;
 * the others still load. Names must be non-empty; what providers accept is handled when
 * tools are named (see names.ts).
 */
export function parseMcpConfig(raw: unknown, source: McpSource): ParsedMcpConfig {
  const problems: McpConfigProblem[] = [];
  const file = McpConfigFile.safeParse(raw ?? {});
  if (!file.success)
    return {
      servers: [],
      problems: [{ source, message: `not a valid MCP configuration: ${z.prettifyError(file.error)}` }],
    };
  const inputs = file.data.inputs ?? [];
  const servers: McpServerEntry[] = [];
  for (const [name, value] of Object.entries(file.data.servers)) {
    if (!name.trim()) {
      problems.push({ source, message: "a server has an empty name" });
      continue;
    }
    const parsed = parseServer(value);
    if (typeof parsed === "string") problems.push({ source, server: name, message: parsed });
    else servers.push({ name, config: parsed, source, inputs });
  }
  return { servers, problems };
}

function parseServer(value: unknown): McpServerConfig | string {
  if (typeof value !== "object" || value === null) return "must be an object with `command` (stdio) or `url` (http)";
  const v = value as Record<string, unknown>;
  const type = v.type;
  if (type !== undefined && type !== "stdio" && type !== "http" && type !== "sse")
    return `unknown type '${String(type)}' (use stdio, http or sse)`;
  const schema = type === "stdio" || (type === undefined && "command" in v) ? StdioServerConfig : HttpServerConfig;
  const parsed = schema.safeParse(v);
  if (!parsed.success) return z.prettifyError(parsed.error).replace(/\n/g, "; ");
  if ("url" in parsed.data) {
    try {
      const url = new URL(parsed.data.url.replace(/\$\{[^}]*\}/g, "x"));
      if (url.protocol !== "http:" && url.protocol !== "https:") return `url must be http(s), not ${url.protocol}`;
    } catch {
      return `url '${parsed.data.url}' is not a URL`;
    }
  }
  return parsed.data;
}

/** Merges sources in order; a later source's server of the same name wins (workspace over user, as VS Code does). */
export function mergeMcpConfigs(configs: readonly ParsedMcpConfig[]): ParsedMcpConfig {
  const byName = new Map<string, McpServerEntry>();
  const problems: McpConfigProblem[] = [];
  for (const c of configs) {
    for (const s of c.servers) {
      byName.delete(s.name);
      byName.set(s.name, s);
    }
    problems.push(...c.problems);
  }
  return { servers: [...byName.values()], problems };
}

/** What the consent prompt shows and remembers: the command line or URL exactly as configured (no secrets substituted). */
export function launchLine(config: McpServerConfig): string {
  if ("command" in config) return [config.command, ...(config.args ?? [])].map(shellQuote).join(" ");
  return config.url;
}

/** A stable fingerprint of everything that decides what a server runs: changing any of it asks for consent again. */
export function launchFingerprint(entry: McpServerEntry): string {
  const c = entry.config;
  return JSON.stringify(
    "command" in c
      ? ["stdio", c.command, c.args ?? [], c.env ?? {}, c.cwd ?? "", c.envFile ?? ""]
      : [c.type ?? "http", c.url, c.headers ?? {}],
  );
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export const INPUT_REFERENCE = /\$\{input:([^}]+)\}/g;
const VARIABLE = /\$\{(input|env):([^}]+)\}|\$\{(workspaceFolder)\}/g;

/** The `${input:id}` ids a server's config uses, in order of first use. */
export function inputIdsOf(config: McpServerConfig): string[] {
  const ids = new Set<string>();
  for (const s of stringsOf(config)) for (const m of s.matchAll(INPUT_REFERENCE)) ids.add(m[1]!);
  return [...ids];
}

function stringsOf(config: McpServerConfig): string[] {
  if ("command" in config)
    return [
      config.command,
      ...(config.args ?? []),
      ...Object.values(config.env ?? {}).filter((v): v is string => typeof v === "string"),
      config.cwd ?? "",
    ];
  return [config.url, ...Object.values(config.headers ?? {})];
}

export interface SubstituteContext {
  workspaceFolder: string;
  env: NodeJS.ProcessEnv;
  /** Values of the inputs the config uses (resolved by the host: SecretStorage, a prompt, the environment). */
  inputs: ReadonlyMap<string, string>;
}

/** The config with every variable replaced; an unknown input is an error that names it. */
export function substitute(config: McpServerConfig, ctx: SubstituteContext): McpServerConfig {
  const sub = (s: string): string =>
    s.replace(VARIABLE, (_m, kind: string | undefined, name: string | undefined, folder: string | undefined) => {
      if (folder) return ctx.workspaceFolder;
      if (kind === "env") return ctx.env[name!] ?? "";
      const value = ctx.inputs.get(name!);
      if (value === undefined) throw new Error(`input '${name}' has no value`);
      return value;
    });
  const map = (m: Record<string, string> | undefined) =>
    m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, sub(v)])) : undefined;
  if ("command" in config) {
    const env = config.env
      ? Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, v === null ? null : sub(v)]))
      : undefined;
    return {
      ...config,
      command: sub(config.command),
      ...(config.args ? { args: config.args.map(sub) } : {}),
      ...(env ? { env } : {}),
      ...(config.cwd ? { cwd: sub(config.cwd) } : {}),
    };
  }
  return { ...config, url: sub(config.url), ...(config.headers ? { headers: map(config.headers)! } : {}) };
}
