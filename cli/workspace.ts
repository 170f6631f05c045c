import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Sessions } from "../core/storage";

/**
 * Opens the session store of a workspace, without the runtime: `sessions show|rename|fork|archive|…` need no agent
 * or provider SDK, so their bundle stays the store's (stated in test/extension/layers.test.ts).
 */
export function openStore(root: string): Sessions {
  return new Sessions({ root });
}

/** Facts for the system prompt: the git branch and the top-level entries of the folder. */
export async function workspaceNotes(root: string): Promise<string[]> {
  const notes: string[] = [];
  const head = await readFile(join(root, ".git", "HEAD"), "utf8").catch(() => undefined);
  if (head)
    notes.push(`git: ${head.startsWith("ref: refs/heads/") ? `branch ${head.slice(16).trim()}` : "detached HEAD"}`);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((e) => e.name !== ".git" && e.name !== ".downcity")
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
  if (names.length > 0)
    notes.push(
      `top-level entries: ${names.slice(0, 40).join(", ")}${names.length > 40 ? `, … (${names.length - 40} more)` : ""}`,
    );
  return notes;
}

/** DOWNCITY_RULES_FILES (comma-separated extra rules files) and DOWNCITY_RULES_MAX_TOKENS, for the runtime's rules. */
export function rulesFromEnv(env: NodeJS.ProcessEnv): { files: () => string[]; budgetTokens?: () => number } {
  const files = (env.DOWNCITY_RULES_FILES ?? "")
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  const budget = Number(env.DOWNCITY_RULES_MAX_TOKENS);
  return {
    files: () => files,
    ...(env.DOWNCITY_RULES_MAX_TOKENS && Number.isInteger(budget) && budget >= 0 ? { budgetTokens: () => budget } : {}),
  };
}
