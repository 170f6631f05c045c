/**
 * Rebuilds the two sides of a unified diff from one of them, so VS Code's diff editor
 * can show an edit the agent made (after: the file now; before: the diff reversed) or
 * one awaiting approval (before: the file now; after: the diff applied).
 */
interface Hunk {
  /** 1-based start line in the side the diff is applied to. */
  start: number;
  from: string[];
  to: string[];
}

function parseHunks(diff: string, reverse: boolean): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  for (const line of diff.split("\n")) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (header) {
      current = { start: Number(reverse ? header[2] : header[1]), from: [], to: [] };
      hunks.push(current);
      continue;
    }
    if (!current || line.startsWith("---") || line.startsWith("+++") || line.startsWith("\\")) continue;
    const body = line.slice(1);
    if (line.startsWith(" ")) {
      current.from.push(body);
      current.to.push(body);
    } else if (line.startsWith("-")) {
      (reverse ? current.to : current.from).push(body);
    } else if (line.startsWith("+")) {
      (reverse ? current.from : current.to).push(body);
    }
  }
  return hunks;
}

/** Applies `diff` to `text` (or undoes it when `reverse`); undefined when the hunks do not match the text. */
export function applyUnifiedDiff(text: string, diff: string, reverse = false): string | undefined {
  const lines = text.split("\n");
  let shift = 0;
  for (const hunk of parseHunks(diff, reverse)) {
    // A pure insertion's start names the line before it.
    const at = Math.max(0, hunk.start - (hunk.from.length === 0 ? 0 : 1)) + shift;
    const actual = lines.slice(at, at + hunk.from.length);
    if (actual.join("\n") !== hunk.from.join("\n")) return undefined;
    lines.splice(at, hunk.from.length, ...hunk.to);
    shift += hunk.to.length - hunk.from.length;
  }
  return lines.join("\n");
}
