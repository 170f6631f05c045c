// `npm start`: code-server on 127.0.0.1 with this extension installed and the sample
// workspace open; prints the URL and runs until Ctrl-C, which stops everything it
// started. State (settings, sessions of other folders, logs) persists in .e2e/start/.
// The provider comes from DOWNCITY_* in the environment, or is configured in the UI.
//   env: DOWNCITY_PORT (default: a free port), DOWNCITY_WORKSPACE (default: sample-workspace/),
//        DOWNCITY_START_DIR (default: .e2e/start/)
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { E2E_DIR, PROJECT_ROOT, startCodeServer, workbenchUrl } from "../test/support/workbench/code-server";

async function main(): Promise<void> {
  const runDir = process.env.DOWNCITY_START_DIR ?? join(E2E_DIR, "start");
  const workspace = resolve(process.env.DOWNCITY_WORKSPACE ?? join(PROJECT_ROOT, "sample-workspace"));
  if (!existsSync(join(PROJECT_ROOT, "dist", "extension.js"))) {
    console.warn("warning: dist/extension.js is missing (the extension has not been built): VS Code opens without it");
  }
  linkExtension(join(runDir, "extensions"));
  const port = process.env.DOWNCITY_PORT ? Number(process.env.DOWNCITY_PORT) : undefined;
  const server = await startCodeServer({ runDir, ...(port ? { port } : {}) });
  let stopping = false;
  const stop = async (code: number) => {
    stopping = true;
    await server.stop();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(130));
  process.on("SIGTERM", () => void stop(143));
  const provider = process.env.DOWNCITY_PROTOCOL
    ? `${process.env.DOWNCITY_PROTOCOL} ${process.env.DOWNCITY_MODEL ?? ""} ${process.env.DOWNCITY_BASE_URL ?? ""}`.trim()
    : "none from the environment (set DOWNCITY_PROTOCOL/_MODEL/_API_KEY/_BASE_URL, or configure one in VS Code)";
  console.log(`Downcity in VS Code (code-server) is running:\n\n  ${workbenchUrl(server, workspace)}\n`);
  console.log(`provider: ${provider}\nlogs:     ${server.logFile}\nCtrl-C stops it.`);
  await server.exited;
  if (stopping) return;
  console.error("code-server exited; see " + server.logFile);
  process.exit(1);
}

/** The project folder itself, linked in as an installed extension: a rebuild shows after a window reload. */
function linkExtension(extensionsDir: string): void {
  mkdirSync(extensionsDir, { recursive: true });
  const { publisher, name, version } = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"));
  // code-server scans <publisher>.<name>-<version> folders of the extensions dir at start.
  const link = join(extensionsDir, `${publisher}.${name}-${version}`);
  if (existsSync(link) || isLink(link)) rmSync(link, { force: true, recursive: false });
  symlinkSync(PROJECT_ROOT, link, "dir");
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
