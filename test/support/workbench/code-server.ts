// Starts code-server (a real VS Code 1.100.3 workbench with a Node extension host) for
// the in-host tests, the UI tests and `npm start`. Every file code-server, VS Code and
// the extension host write lands in `runDir`: HOME, XDG_* and TMPDIR point there.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

export const PROJECT_ROOT = resolve(__dirname, "..", "..", "..");
export const E2E_DIR = process.env.DOWNCITY_E2E_DIR ?? join(PROJECT_ROOT, ".e2e");
export const CODE_SERVER_BIN = join(E2E_DIR, "code-server", "node_modules", ".bin", "code-server");

export interface CodeServerOptions {
  /** Everything code-server writes goes here (user data, extensions, logs, HOME, TMPDIR). */
  runDir: string;
  /** Extra environment for code-server and so for the extension host (e.g. DOWNCITY_*). */
  env?: Record<string, string>;
  /** User settings.json entries on top of the quiet defaults. */
  settings?: Record<string, unknown>;
  /** Port on 127.0.0.1; a free one when omitted. */
  port?: number;
  /** How long to wait for "HTTP server listening". */
  startTimeoutMs?: number;
  /**
   * Keep VS Code's workspace trust on (no `--disable-workspace-trust`, the setting true): a
   * folder opens in Restricted Mode until trusted. Off by default, as a test's own folder is.
   */
  workspaceTrust?: boolean;
}

export interface CodeServer {
  /** `127.0.0.1:PORT`: the page's host, which the payload's vscode-remote URIs must name. */
  authority: string;
  origin: string;
  userDataDir: string;
  extensionsDir: string;
  logFile: string;
  /** The isolated environment (HOME, XDG_*, TMPDIR) code-server runs with; reuse it for Chromium. */
  env: NodeJS.ProcessEnv;
  process: ChildProcess;
  /** Resolves when code-server's process exits. */
  exited: Promise<void>;
  /** Kills code-server's whole process group (extension host, pty host, file watcher). */
  stop(): Promise<void>;
}

/** Settings that keep the workbench quiet and offline: no tips, walkthroughs, updates or gallery. */
const QUIET_SETTINGS = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "security.workspace.trust.enabled": false,
  "chat.commandCenter.enabled": false,
  "git.enabled": false,
};

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? ok(address.port) : fail(new Error("no port"))));
    });
    server.on("error", fail);
  });
}

/** The environment that confines a VS Code process (and its children) to `runDir`. */
export function isolatedEnv(runDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(runDir, "home"),
    XDG_CONFIG_HOME: join(runDir, "xdg", "config"),
    XDG_DATA_HOME: join(runDir, "xdg", "data"),
    XDG_CACHE_HOME: join(runDir, "xdg", "cache"),
    XDG_RUNTIME_DIR: join(runDir, "xdg", "runtime"),
    // vscode-ipc-*.sock, vscode-git-*.sock and the extension host's temp files.
    TMPDIR: join(runDir, "tmp"),
    // No gallery: code-server defaults to open-vsx.org, which is not reachable.
    EXTENSIONS_GALLERY: "{}",
    ...extra,
  };
  for (const key of ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "TMPDIR"]) {
    mkdirSync(env[key]!, { recursive: true, mode: 0o700 });
  }
  return env;
}

function requireInstalled(): void {
  if (!existsSync(CODE_SERVER_BIN)) {
    throw new Error(`code-server is not installed at ${CODE_SERVER_BIN}: run scripts/setup-vscode.sh`);
  }
}

function baseArgs(runDir: string): string[] {
  return [
    "--config",
    join(runDir, "config.yaml"),
    "--user-data-dir",
    join(runDir, "user-data"),
    "--extensions-dir",
    join(runDir, "extensions"),
  ];
}

/** `code-server --install-extension x.vsix` into `runDir`'s extensions folder. */
export async function installVsix(runDir: string, vsix: string): Promise<void> {
  requireInstalled();
  const child = spawn(CODE_SERVER_BIN, [...baseArgs(runDir), "--install-extension", vsix, "--force"], {
    env: isolatedEnv(runDir),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const code = await new Promise<number | null>((ok) => child.on("exit", ok));
  if (code !== 0) throw new Error(`code-server --install-extension ${vsix} exited ${code}:\n${output}`);
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  requireInstalled();
  const { runDir } = options;
  const userDataDir = join(runDir, "user-data");
  const extensionsDir = join(runDir, "extensions");
  mkdirSync(join(userDataDir, "User"), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const settingsFile = join(userDataDir, "User", "settings.json");
  if (!existsSync(settingsFile) || options.settings) {
    const trust = options.workspaceTrust ? { "security.workspace.trust.enabled": true } : {};
    writeFileSync(settingsFile, JSON.stringify({ ...QUIET_SETTINGS, ...trust, ...options.settings }, null, 2));
  }
  const env = isolatedEnv(runDir, options.env);
  const port = options.port ?? (await freePort());
  const authority = `127.0.0.1:${port}`;
  const logFile = join(runDir, "code-server.log");
  const log = createWriteStream(logFile, { flags: "a" });
  const child = spawn(
    CODE_SERVER_BIN,
    [
      ...baseArgs(runDir),
      "--auth",
      "none",
      "--bind-addr",
      authority,
      "--disable-telemetry",
      "--disable-update-check",
      ...(options.workspaceTrust ? [] : ["--disable-workspace-trust"]),
      "--disable-getting-started-override",
      "--ignore-last-opened",
    ],
    // Own process group, so stop() reaches the extension host and every helper it spawned.
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((ok) => child.on("exit", () => ok()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    signalGroup(child, "SIGTERM");
    const killer = setTimeout(() => signalGroup(child, "SIGKILL"), 3000);
    await exited;
    clearTimeout(killer);
    // Helpers that outlived code-server itself (pty host, watchers) go with the group.
    signalGroup(child, "SIGKILL");
    log.end();
  };
  try {
    await new Promise<void>((ok, fail) => {
      const timer = setTimeout(
        () =>
          fail(new Error(`code-server did not listen within ${options.startTimeoutMs ?? 30_000} ms; log: ${logFile}`)),
        options.startTimeoutMs ?? 30_000,
      );
      const onData = (data: Buffer) => {
        log.write(data);
        if (/HTTP server listening/.test(String(data))) {
          clearTimeout(timer);
          ok();
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`code-server exited (${code ?? signal}) before listening; log: ${logFile}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    authority,
    origin: `http://${authority}`,
    userDataDir,
    extensionsDir,
    logFile,
    env,
    process: child,
    exited,
    stop,
  };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* already gone */
  }
}

/** A workbench URL for a folder or a `.code-workspace` file, with an optional test payload. */
export function workbenchUrl(server: CodeServer, target: string, payload?: [string, string][]): string {
  const key = target.endsWith(".code-workspace") ? "workspace" : "folder";
  let url = `${server.origin}/?${key}=${encodeURIComponent(target)}`;
  if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/** `vscode-remote://` URI of a path on the server: what the payload's development paths must be. */
export function remoteUri(server: CodeServer, path: string): string {
  return `vscode-remote://${server.authority}${path}`;
}
