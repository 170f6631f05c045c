/**
 * Which files count as project rules. `AGENTS.md` is always read; the
 * `downcity.rules.files` setting (CLI: `DOWNCITY_RULES_FILES`) adds others. A bare name
 * (`AGENTS.md`, `CLAUDE.md`, `.clinerules`) is looked up in the workspace root and in
 * every folder on the way to what the task touches; a name with a slash
 * (`.github/copilot-instructions.md`) only at the root.
 */
export const ALWAYS = "AGENTS.md";
export const KNOWN_EXTRAS = ["CLAUDE.md", ".github/copilot-instructions.md", ".clinerules"] as const;

/** The names to look for, `AGENTS.md` first, each once; anything that could leave the folder is dropped. */
export function ruleNames(extra: readonly string[] = []): string[] {
  const names = [ALWAYS];
  for (const raw of extra) {
    const name = raw
      .trim()
      .replace(/\\/g, "/")
      .replace(/^\.\/+/, "")
      .replace(/\/+$/, "");
    if (
      !name ||
      name.startsWith("/") ||
      /^[a-z]:/i.test(name) ||
      name.split("/").some((p) => p === ".." || p === "." || p === "")
    )
      continue;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** A name with a slash is a root-relative path, read only at the root. */
export const rootOnly = (name: string) => name.includes("/");
