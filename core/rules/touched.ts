import type { Message } from "../protocol";

/**
 * The workspace paths a session's context names: every `path` argument of its tool calls
 * and every attachment of its user messages (DESIGN: rules of the folders the task
 * touches). Read from the Surface (`deriveMessages()`, cached), so it costs one pass over
 * what the model sees anyway, never the whole history. Paths are workspace-relative with
 * `/`; absolute ones are made relative when under `root`, anything outside is dropped.
 */
export function touchedPaths(messages: readonly Message[], root: string): string[] {
  const out = new Set<string>();
  const add = (raw: unknown) => {
    if (typeof raw !== "string" || !raw) return;
    const rel = relativeInside(raw, root);
    if (rel !== undefined) out.add(rel);
  };
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === "tool-call") add(block.arguments.path);
      else if (block.type === "text" && block.attachment?.path) add(block.attachment.path);
    }
  }
  return [...out];
}

/** `raw` as a clean workspace-relative path ("" for the root), or undefined when it leaves the folder. */
export function relativeInside(raw: string, root: string): string | undefined {
  let path = raw.replace(/\\/g, "/");
  const base = root.replace(/\\/g, "/").replace(/\/+$/, "");
  if (path.startsWith("/") || /^[a-z]:\//i.test(path)) {
    if (path !== base && !path.startsWith(base + "/")) return undefined;
    path = path.slice(base.length);
  }
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}
