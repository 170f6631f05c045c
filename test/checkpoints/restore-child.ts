// A restore in its own process, killed with SIGKILL right after its `kill-after`-th file
// (restore-crash.test.ts): what the next open reports is what the disk holds.
import { settingsForPolicy } from "../../core/agent/approval";
import { createWorkspaceRuntime } from "../../core/runtime/create";

const [root, sessionId, messageSeq, killAfter] = process.argv.slice(2);
const runtime = createWorkspaceRuntime({
  root: root!,
  providers: () => [],
  model: () => undefined,
  approval: () => settingsForPolicy("none"),
  tools: () => [],
});
const ref = { agentId: "code", sessionId: sessionId! };
void (async () => {
  const plan = await runtime.previewRestore(ref, await runtime.restorePoint(ref, Number(messageSeq)));
  let files = 0;
  await runtime.applyRestore(ref, plan, {
    scope: "files",
    onFile: () => {
      if (++files === Number(killAfter)) process.kill(process.pid, "SIGKILL");
    },
  });
  process.stdout.write("finished without being killed\n");
})();
