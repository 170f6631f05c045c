import type { ToolSpec } from "../protocol";

export interface WorkspaceFacts {
  /** Absolute path of the workspace folder the tools are confined to. */
  root: string;
  /** e.g. "linux", "darwin", "win32". */
  platform: string;
  /** Extra facts the host knows (git branch, open editors, language). */
  notes?: string[];
}

/**
 * The system prompt of one step: role, workspace facts, date, OS, the tools, the agent's
 * instructions (`extra`), then the project's rules files (`rules`, core/rules: already
 * framed, ordered and cut to their budget), last so the nearest rule is the last word.
 */
export function buildSystemPrompt(
  facts: WorkspaceFacts,
  tools: readonly ToolSpec[],
  now: Date,
  extra?: string,
  rules?: string,
): string {
  const lines = [
    "You are Downcity, a careful coding agent working inside the user's workspace.",
    "Read before you change. Make the smallest change that does what was asked, keep the project's style, and say what you changed and why.",
    "Use the tools for every fact about the workspace; never guess file contents. Paths are relative to the workspace root.",
    "Edits and commands may need the user's approval; if one is denied, do not retry it: explain and continue or stop.",
    "",
    "# Workspace",
    `- root: ${facts.root}`,
    `- operating system: ${facts.platform}`,
    `- date: ${now.toISOString().slice(0, 10)}`,
    ...(facts.notes ?? []).map((note) => `- ${note}`),
  ];
  if (tools.length > 0) {
    lines.push("", "# Tools");
    for (const tool of tools) lines.push(`- ${tool.name}: ${tool.description.split("\n")[0]}`);
  }
  if (extra) lines.push("", extra);
  if (rules) lines.push("", rules);
  return lines.join("\n");
}
