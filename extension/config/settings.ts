import * as vscode from "vscode";
import { z } from "zod";
import { CompactionConfig, ProviderProfileSchema, type CompactionSettings } from "../../core/runtime/before-first-draw";
import type { ProviderProfile } from "../../core/runtime";
import type { AgentProfile, ApprovalSettings } from "../../core/runtime/types";

/** One entry of `downcity.providers`: a core provider profile plus the model it serves by default. No key: keys live in SecretStorage. */
export interface ProviderSetting {
  profile: ProviderProfile;
  model: string;
  contextWindow?: number;
}

const ProviderEntry = ProviderProfileSchema.pick({
  id: true,
  protocol: true,
  baseURL: true,
  headers: true,
  server: true,
}).extend({
  model: z.string().min(1),
  contextWindow: z.number().int().positive().optional(),
});

const AgentEntry = z.object({
  id: z.string().regex(/^[a-z0-9_-]+$/, "lower-case letters, digits, - and _"),
  name: z.string().min(1),
  instructions: z.string().optional(),
  tools: z.array(z.string().min(1)).optional(),
});

export interface Settings {
  providers: ProviderSetting[];
  defaultProvider: string | undefined;
  approval: ApprovalSettings;
  compaction: CompactionSettings;
  agents: AgentProfile[];
  /** What was wrong in settings (each names its key); shown once per change. */
  problems: string[];
}

const APPROVAL = z.enum(["ask", "auto"]);

/**
 * The `downcity.compaction.*` settings: the core's name, the setting's, and the key it had before. The Settings
 * editor titles a setting by its key ("Tool Result Max Chars"), so the keys say characters, not code points
 * (issue 19: plain words); the old keys are still read.
 */
const COMPACTION_KEYS = [
  ["triggerRatio", "triggerRatio"],
  ["verifyRatio", "verifyRatio"],
  ["retainRatio", "retainRatio"],
  ["toolResultMaxCodePoints", "toolResultMaxChars", "toolResultMaxCodePoints"],
  ["reasoningMaxCodePoints", "reasoningMaxChars", "reasoningMaxCodePoints"],
  ["summaryChunkChars", "summaryChunkChars"],
] as const satisfies readonly (readonly [keyof CompactionSettings, string, string?])[];

/**
 * Reads `downcity.*`, naming every invalid value. An invalid value never replaces a good
 * one: the value `previous` (the settings in effect) had for that key is kept; on the
 * first read, invalid entries are skipped and invalid scalars take their safe default.
 */
export function readSettings(
  config: vscode.WorkspaceConfiguration = vscode.workspace.getConfiguration("downcity"),
  previous?: Settings,
): Settings {
  const problems: string[] = [];
  const kept = (key: string, fallback: string) =>
    previous ? `the last valid value of downcity.${key} is kept` : fallback;

  const providers = readList(config, "providers", ProviderEntry, problems, previous?.providers, (entry, list, i) => {
    const { model, contextWindow, ...fields } = entry;
    if (list.some((p) => p.profile.id === fields.id))
      return `downcity.providers[${i}]: the id "${fields.id}" is used twice`;
    const profile: ProviderProfile = { ...fields } as ProviderProfile;
    if (contextWindow) profile.models = { [model]: { contextWindow } };
    list.push(contextWindow ? { profile, model, contextWindow } : { profile, model });
    return undefined;
  });

  const approvalKind = (key: "reads" | "edits" | "commands"): "ask" | "auto" => {
    const value = config.get<unknown>(`approval.${key}`);
    if (value === undefined) return key === "reads" ? "auto" : "ask";
    const parsed = APPROVAL.safeParse(value);
    if (parsed.success) return parsed.data;
    problems.push(`downcity.approval.${key}: must be "ask" or "auto"; ${kept(`approval.${key}`, '"ask" is used')}`);
    return previous?.approval[key] ?? "ask";
  };
  const allowed = z.array(z.string().min(1)).safeParse(config.get<unknown>("approval.allowedCommands") ?? []);
  if (!allowed.success)
    problems.push(
      `downcity.approval.allowedCommands: must be a list of commands; ${kept("approval.allowedCommands", "none is allowed")}`,
    );
  const approval: ApprovalSettings = {
    reads: approvalKind("reads"),
    edits: approvalKind("edits"),
    commands: approvalKind("commands"),
    allowedCommands: allowed.success ? allowed.data : (previous?.approval.allowedCommands ?? []),
  };

  const compaction: CompactionSettings = {};
  for (const [key, setting, legacy] of COMPACTION_KEYS) {
    // A user's settings.json may still have the old code-point key: it applies while the plain one is unset.
    let name = `compaction.${setting}`;
    let value = config.get<unknown>(name);
    if ((value === undefined || value === null) && legacy) value = config.get<unknown>((name = `compaction.${legacy}`));
    if (value === undefined || value === null) continue;
    const parsed = CompactionConfig.shape[key].safeParse(value);
    if (parsed.success) (compaction as Record<string, unknown>)[key] = parsed.data;
    else {
      problems.push(
        `downcity.${name}: ${parsed.error.issues[0]?.message ?? "invalid"}; ${kept(name, "the default is used")}`,
      );
      if (previous?.compaction[key] !== undefined)
        (compaction as Record<string, unknown>)[key] = previous.compaction[key];
    }
  }

  const agents = readList(config, "agents", AgentEntry, problems, previous?.agents, (entry, list) => {
    list.push(entry as AgentProfile);
    return undefined;
  });

  let defaultProvider = config.get<string>("defaultProvider") || undefined;
  if (defaultProvider && !providers.some((p) => p.profile.id === defaultProvider)) {
    const last = previous?.defaultProvider;
    const keep = last !== undefined && providers.some((p) => p.profile.id === last);
    problems.push(
      `downcity.defaultProvider: no provider profile "${defaultProvider}" in downcity.providers${keep ? `; "${last}" is kept` : ""}`,
    );
    if (keep) defaultProvider = last;
  }
  return { providers, defaultProvider, approval, compaction, agents, problems };
}

/**
 * A list setting: each entry parsed (and `add`ed, which may refuse it with a problem).
 * With any entry wrong, the whole last valid list is kept, so a half-typed edit never
 * drops a profile or an agent that worked.
 */
function readList<S extends z.ZodType, T>(
  config: vscode.WorkspaceConfiguration,
  key: string,
  schema: S,
  problems: string[],
  previous: T[] | undefined,
  add: (entry: z.infer<S>, list: T[], index: number) => string | undefined,
): T[] {
  const raw = config.get<unknown>(key) ?? [];
  const list: T[] = [];
  const found: string[] = [];
  if (!Array.isArray(raw)) found.push(`downcity.${key}: must be a list`);
  else
    raw.forEach((value, i) => {
      const parsed = schema.safeParse(value);
      const problem = parsed.success
        ? add(parsed.data, list, i)
        : `downcity.${key}[${i}]: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`;
      if (problem) found.push(problem);
    });
  if (found.length === 0) return list;
  const tail = previous ? `the last valid value of downcity.${key} is kept` : "the entry is skipped";
  problems.push(...found.map((p) => `${p}; ${tail}`));
  return previous ?? list;
}
