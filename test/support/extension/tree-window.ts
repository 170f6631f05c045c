import { createWorkspaceRuntime } from "../../../core/runtime";
import { type ListFilter } from "../../../core/runtime/host";
import { ProviderConfig } from "../../../extension/config/providers";
import { FolderRegistry } from "../../../extension/folders/registry";
import type { SessionNode } from "../../../extension/sessions/nodes";
import { RememberedFirstRows } from "../../../extension/sessions/remembered-rows";
import { SessionsTree, type SessionsTreeOptions } from "../../../extension/sessions/tree";
import { countingFactory, fakeContext } from "./helpers";

/**
 * A window's Sessions view, its lists seen by `asked` and the full lists held until `release`. Returns the tree,
 * its remembered rows and how to close the window (the full list let go, the remembered rows written).
 */
export function openWindow(
  t: { after(fn: () => Promise<void>): void },
  file: string,
  logged: string[] = [],
  offThread?: SessionsTreeOptions["offThread"],
) {
  const asked: ListFilter[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { factory } = countingFactory((options) => {
    const runtime = createWorkspaceRuntime(options);
    const list = runtime.list.bind(runtime);
    runtime.list = async (filter = {}) => {
      asked.push(filter);
      if (filter.limit === undefined && filter.sessions === undefined) await gate;
      return list(filter);
    };
    return runtime;
  });
  const context = fakeContext();
  const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  // No write before the test flushes (as the window's close does): a minute's delay.
  const remembered = new RememberedFirstRows(file, (line) => logged.push(line), 60_000);
  const tree = new SessionsTree(runtimes, {
    coalesceMs: 1,
    drawWaitMs: 0,
    remembered,
    ...(offThread && { offThread }),
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    release();
    await tree.ready;
    await remembered.flush();
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  };
  t.after(close);
  return { tree, asked, release, close };
}

/** The session ids among a group's rows. */
export const ids = (rows: unknown[]) =>
  (rows as SessionNode[]).filter((n) => n.kind === "session").map((n) => n.item.sessionId);
