/**
 * One turn of the extension host's event loop: what came in meanwhile (the workbench's requests) is handled, and what
 * was answered is written out. VS Code's extension host writes its messages from a `setTimeout(0)` set as each message
 * is made (ProtocolWriter in vs/base/parts/ipc/common/ipc.net.ts): a timer set after this turn's immediates fires after
 * those, so work started then no longer holds back a reply made before it (issue 20: the rest of the extension, 80–600
 * ms of evaluation during start-up, started as the tree's first rows were answered, before their reply was written).
 */
export function hostTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setTimeout(resolve, 0)));
}
