// The same in-host tests under @vscode/test-electron, for machines that can download VS
// Code desktop (this one cannot: there the suite runs them in code-server, see
// test/e2e/host-tests.test.ts). Same bundle, same `run()` entry, same seeded workspace.
//   npm run test:electron
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runTests } from "@vscode/test-electron";
import { seedHostWorkspace } from "../test/support/host-workspace";
import { buildHostTests } from "../test/support/workbench/build-host-tests";
import { E2E_DIR, PROJECT_ROOT } from "../test/support/workbench/code-server";

async function main(): Promise<void> {
  const out = join(E2E_DIR, "electron-run");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const extensionTestsPath = await buildHostTests();
  const target = await seedHostWorkspace(join(out, "workspace"));
  await runTests({
    version: "1.100.3",
    extensionDevelopmentPath: PROJECT_ROOT,
    extensionTestsPath,
    launchArgs: [target.open, "--disable-workspace-trust", "--user-data-dir", join(out, "user-data")],
    extensionTestsEnv: {
      DOWNCITY_HOST_WORKSPACE: JSON.stringify(target.info),
      DOWNCITY_HOST_RESULTS: join(out, "results.ndjson"),
    },
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
