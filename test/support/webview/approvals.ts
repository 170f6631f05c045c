// The host's side of a tool card's approval, as the runtime sends it, for the webview tests.
import type { FakeHost } from "./harness";
import { ev, REF } from "./harness";

const base = { sessionId: REF.sessionId, agentId: REF.agentId };
export const EDIT_DIFF =
  "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n";

/** An edit of src/a.ts waiting for its answer (a snapshot's `pendingApprovals` entry). */
export function pendingEdit(toolCallId: string) {
  return {
    type: "approval-requested" as const,
    ...base,
    toolCallId,
    toolName: "edit_file",
    kind: "edit" as const,
    summary: "Edit src/a.ts (+1 −1)",
    preview: { kind: "edit" as const, path: "src/a.ts", diff: EDIT_DIFF, added: 1, removed: 1 },
  };
}

type Decided = { decision: "approved"; scope?: "once" | "session" } | { decision: "denied"; reason?: string };

/** The decision as the runtime reports it: approval-resolved, then the logged tool/approval at `seq`. */
export async function decided(host: FakeHost, toolCallId: string, seq: number, d: Decided): Promise<void> {
  const data = { toolCallId, by: "user" as const, ...d };
  await host.event({ type: "agent", folderKey: REF.folderKey, event: { type: "approval-resolved", ...base, ...data } });
  await host.event({
    type: "agent",
    folderKey: REF.folderKey,
    event: { type: "session-event", ...base, event: ev(seq, "tool/approval", data, false) },
  });
}
