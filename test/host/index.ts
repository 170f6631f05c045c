// Entry of the in-host tests: the module an extension host loads as `extensionTestsPath`
// (code-server through the workbench's `payload` URL parameter, or @vscode/test-electron
// on machines that can download VS Code desktop). It runs every bundled `*.host.js`
// beside it with mocha (TDD interface) and, when DOWNCITY_HOST_RESULTS names a file,
// appends one JSON line per test there for the Node-side driver.
import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Mocha from "mocha";
import type { HostTestRecord } from "./results";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", timeout: 30_000, color: false, reporter: "spec" });
  const grep = process.env.DOWNCITY_HOST_GREP;
  if (grep) mocha.grep(grep);
  for (const file of readdirSync(__dirname)
    .filter((f) => f.endsWith(".host.js"))
    .sort()) {
    mocha.addFile(join(__dirname, file));
  }
  const resultsFile = process.env.DOWNCITY_HOST_RESULTS;
  const emit = (record: HostTestRecord) => {
    if (resultsFile) appendFileSync(resultsFile, JSON.stringify(record) + "\n");
  };
  return new Promise((resolve, reject) => {
    emit({ type: "start", pid: process.pid });
    const runner = mocha.run((failures) => {
      emit({ type: "end", failures });
      if (failures > 0) reject(new Error(`${failures} in-host test(s) failed`));
      else resolve();
    });
    runner.on("pass", (t) => emit({ type: "test", title: t.fullTitle(), ok: true, ms: t.duration ?? 0 }));
    // Also fires for a failing hook, whose title then names the hook.
    runner.on("fail", (t, error: Error) =>
      emit({
        type: "test",
        title: t.fullTitle(),
        ok: false,
        ms: t.duration ?? 0,
        error: error?.stack ?? String(error),
      }),
    );
    runner.on("pending", (t) => emit({ type: "test", title: t.fullTitle(), ok: true, ms: 0, skipped: true }));
  });
}
