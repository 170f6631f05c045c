import { ATTACHMENT_MAX_CHARS, type ContentBlock, type ResolvedAttachment } from "../protocol";

/**
 * The text each @-mention attaches (issue 25 item 3), built from what the host gathered
 * (VS Code's files, diagnostics, selection, terminal). Pure, so the CLI and the tests
 * share it. Each text says what it is and where it came from, fenced with a fence longer
 * than any backtick run inside (file contents cannot close it early), and is cut at
 * ATTACHMENT_MAX_CHARS with a marker that says so.
 */

function fenced(body: string, lang = ""): string {
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${body.replace(/\n$/, "")}\n${fence}`;
}

function capped(text: string): string {
  if (text.length <= ATTACHMENT_MAX_CHARS) return text;
  return `${text.slice(0, ATTACHMENT_MAX_CHARS)}\n[… truncated: ${ATTACHMENT_MAX_CHARS.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters attached]`;
}

/** Lines `start..end` (1-based, inclusive) of `text`, clamped to the file. */
export function lineRange(text: string, start: number, end: number): { text: string; start: number; end: number } {
  const lines = text.split("\n");
  const s = Math.min(Math.max(1, start), lines.length);
  const e = Math.min(Math.max(s, end), lines.length);
  return { text: lines.slice(s - 1, e).join("\n"), start: s, end: e };
}

/** `path` or `path:10-20` (also `path:10`) as the path and its range. */
export function parseFileMention(raw: string): { path: string; range?: { start: number; end: number } } {
  const m = /^(.*?):(\d+)(?:-(\d+))?$/.exec(raw.trim());
  if (!m || !m[1]) return { path: raw.trim() };
  const start = Number(m[2]);
  const end = m[3] ? Number(m[3]) : start;
  return start >= 1 && end >= 1
    ? { path: m[1], range: { start: Math.min(start, end), end: Math.max(start, end) } }
    : { path: m[1] };
}

const ext = (path: string) => /\.([A-Za-z0-9]+)$/.exec(path)?.[1] ?? "";

export function fileAttachment(
  path: string,
  content: string,
  range?: { start: number; end: number },
): ResolvedAttachment {
  if (!range)
    return {
      info: { kind: "file", label: path, path },
      text: capped(`Attached file \`${path}\`:\n\n${fenced(content, ext(path))}`),
    };
  const cut = lineRange(content, range.start, range.end);
  const r = { start: cut.start, end: cut.end };
  return {
    info: { kind: "file", label: `${path}:${r.start}-${r.end}`, path, range: r },
    text: capped(`Attached lines ${r.start}-${r.end} of \`${path}\`:\n\n${fenced(cut.text, ext(path))}`),
  };
}

export interface FolderEntry {
  name: string;
  directory: boolean;
}

/** A folder's listing (one level, directories first), not its files' contents. */
export function folderAttachment(path: string, entries: readonly FolderEntry[], more = 0): ResolvedAttachment {
  const shown = path || ".";
  const sorted = [...entries].sort(
    (a, b) => Number(b.directory) - Number(a.directory) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const lines = sorted.map((e) => `${e.name}${e.directory ? "/" : ""}`);
  if (more > 0) lines.push(`… and ${more} more`);
  return {
    info: { kind: "folder", label: `${shown}/`, ...(path ? { path } : {}) },
    text: capped(
      `Attached folder listing of \`${shown}/\` (${entries.length + more} entries):\n\n${fenced(lines.join("\n") || "(empty)")}`,
    ),
  };
}

export interface Problem {
  path: string;
  /** 1-based. */
  line: number;
  column: number;
  severity: "error" | "warning" | "info" | "hint";
  message: string;
  source?: string;
}

export function problemsAttachment(problems: readonly Problem[], more = 0): ResolvedAttachment {
  const errors = problems.filter((p) => p.severity === "error").length;
  const lines = problems.map(
    (p) =>
      `${p.path}:${p.line}:${p.column} ${p.severity}${p.source ? ` ${p.source}` : ""}: ${p.message.replace(/\s*\n\s*/g, " ")}`,
  );
  if (more > 0) lines.push(`… and ${more} more`);
  const head =
    problems.length === 0
      ? "The workspace has no problems (diagnostics) now."
      : `Attached problems (${problems.length + more}: ${errors} error${errors === 1 ? "" : "s"}), as the Problems panel shows them:`;
  return {
    info: { kind: "problems", label: `Problems (${problems.length + more})` },
    text: capped(problems.length ? `${head}\n\n${fenced(lines.join("\n"))}` : head),
  };
}

export function selectionAttachment(
  path: string,
  range: { start: number; end: number },
  text: string,
): ResolvedAttachment {
  const name = path.split("/").pop() ?? path;
  return {
    info: { kind: "selection", label: `Selection (${name}:${range.start}-${range.end})`, path, range },
    text: capped(`Attached selection, lines ${range.start}-${range.end} of \`${path}\`:\n\n${fenced(text, ext(path))}`),
  };
}

export function terminalAttachment(name: string, output: string, command?: string): ResolvedAttachment {
  const clean = output.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "").replace(/\r\n?/g, "\n");
  return {
    info: { kind: "terminal", label: `Terminal (${name})` },
    text: capped(
      `Attached recent output of the terminal "${name}"${command ? ` (last command: \`${command}\`)` : ""}:\n\n${fenced(clean || "(no output)")}`,
    ),
  };
}

/** The user message's content: the typed text, then each attachment as a text block carrying its `attachment` info. */
export function withAttachments(text: string, attachments: readonly ResolvedAttachment[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (text) blocks.push({ type: "text", text });
  for (const a of attachments) blocks.push({ type: "text", text: a.text, attachment: a.info });
  return blocks;
}
