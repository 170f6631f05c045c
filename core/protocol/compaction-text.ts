/**
 * How a compaction's result is said, in one unit (Surface messages closed into a
 * segment), by every place that shows it: the chat's marker and notice, the Compact Now
 * toast, the CLI. One function so the numbers and words cannot drift apart again.
 */
export function compactedText(closed: number): string {
  return closed > 0 ? `Compacted ${closed} message${closed === 1 ? "" : "s"}` : "Nothing to compact";
}
