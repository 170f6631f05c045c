import { createWorkspaceRuntime } from "../../../core/runtime";
import { ProviderConfig } from "../../../extension/config/providers";
import { FolderRegistry } from "../../../extension/folders/registry";
import { SessionsTree } from "../../../extension/sessions/tree";
import { countingFactory, fakeContext } from "./helpers";

/** The Sessions tree over the fake workspace's folders (real runtimes), disposed with its registry after the test. */
export function openSessionsTree(t: { after(fn: () => Promise<void>): void }): {
  tree: SessionsTree;
  runtimes: FolderRegistry;
} {
  const context = fakeContext();
  const runtimes = new FolderRegistry(
    countingFactory(createWorkspaceRuntime).factory,
    new ProviderConfig(context.secrets, context.workspaceState, {}),
  );
  const tree = new SessionsTree(runtimes, { coalesceMs: 5, drawWaitMs: 0 });
  t.after(async () => {
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  });
  return { tree, runtimes };
}
