import type { ContentRef, SessionEvent } from "../protocol";
import { resolveInsideRoot } from "../tools/sandbox";
import { sha256 as sha } from "./blob-store";
import { matches, type ContentSource } from "./content";
import { readWorkspaceFile } from "./read-file";
import { fileTimeline } from "./timeline";

export type RestoreStatus = "restore" | "conflict" | "not-restorable";

/** One file a restore would change. */
export interface RestoreFilePlan {
  /** Workspace-relative, `/`-separated. */
  path: string;
  status: RestoreStatus;
  /** What the file is put back to, and what Downcity last left it as. */
  target: ContentRef;
  expected: ContentRef;
  /** The file now: absent, or its hash and size. */
  current: { kind: "absent" } | { kind: "file"; sha256: string; size: number } | { kind: "unreadable"; reason: string };
  /** Why it is not restorable, or what the conflict is. */
  reason?: string;
}

export interface RestorePlan {
  toSeq: number;
  files: RestoreFilePlan[];
  /** Files changed after `toSeq` that already hold their content at `toSeq`. */
  unchanged: string[];
}

/** The plan with the bytes it was computed from: the preview's diffs and the apply use these, not a second read. */
export interface LoadedPlan extends RestorePlan {
  bytes: Map<string, { now: Buffer | null; target: Buffer | null }>;
  /** The real workspace file of each path (sandbox-resolved). */
  abs: Map<string, string>;
}

/**
 * What restoring the files to their state right after `toSeq` would do, computed from
 * the log and the disk without writing anything: for each file Downcity changed after
 * `toSeq`, its target (the content before the first such change), the content it last
 * left (after the last change), and the file now. A file the user changed since Downcity
 * last did is a conflict; one whose target content is not known (or whose blob is
 * missing or forged, or whose path the sandbox refuses) is not restorable.
 */
export async function planRestore(
  events: readonly SessionEvent[],
  toSeq: number,
  root: string,
  source: ContentSource,
): Promise<LoadedPlan> {
  const last = events.at(-1)?.seq ?? 0;
  if (!Number.isSafeInteger(toSeq) || toSeq < 0 || toSeq > last)
    throw new RangeError(`restore point ${toSeq} is outside 0..${last}`);
  const plan: LoadedPlan = { toSeq, files: [], unchanged: [], bytes: new Map(), abs: new Map() };
  for (const [path, changes] of [...fileTimeline(events)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const firstAfter = changes.find((c) => c.seq > toSeq);
    if (!firstAfter) continue;
    const target = firstAfter.before;
    const expected = changes.at(-1)!.after;
    let abs: string;
    try {
      // The log may come from a cloned repository: its paths obey the sandbox like any tool's.
      abs = await resolveInsideRoot(root, path, { forWrite: true });
    } catch (error) {
      plan.files.push({
        path,
        status: "not-restorable",
        target,
        expected,
        current: { kind: "unreadable", reason: "refused by the sandbox" },
        reason: (error as Error).message,
      });
      continue;
    }
    const read = await readWorkspaceFile(abs);
    const now = read.kind === "bytes" ? read.bytes : null;
    const current: RestoreFilePlan["current"] =
      read.kind === "absent"
        ? { kind: "absent" }
        : read.kind === "unreadable"
          ? { kind: "unreadable", reason: read.reason }
          : { kind: "file", sha256: sha(read.bytes), size: read.bytes.byteLength };
    if (read.kind !== "unreadable" && matches(now, target)) {
      plan.unchanged.push(path);
      continue;
    }
    const entry = (status: RestoreStatus, reason?: string): RestoreFilePlan => ({
      path,
      status,
      target,
      expected,
      current,
      ...(reason ? { reason } : {}),
    });
    if (read.kind === "unreadable") {
      plan.files.push(entry("not-restorable", `the file cannot be read now: ${read.reason}`));
      continue;
    }
    const content = await source.read(target);
    if (!content.ok) {
      plan.files.push(entry("not-restorable", content.reason));
      continue;
    }
    plan.bytes.set(path, { now, target: content.bytes });
    plan.abs.set(path, abs);
    if (matches(now, expected)) plan.files.push(entry("restore"));
    else
      plan.files.push(
        entry(
          "conflict",
          expected.kind === "unknown"
            ? "Downcity does not know what it last left here"
            : "changed after Downcity last changed it",
        ),
      );
  }
  return plan;
}
