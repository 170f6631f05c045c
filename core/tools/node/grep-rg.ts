import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { ToolError } from "../errors";
import { GREP_MAX_FILE_BYTES, GREP_MAX_LINE_CHARS, type GrepQuery, type GrepResult } from "./grep-types";

/**
 * grep through ripgrep: same rules as the JS engine (.gitignore honoured even outside a
 * git repository, hidden files searched, .git/ and .downcity/ skipped, huge files skipped),
 * stopped as soon as one more line than `maxResults` has arrived.
 */
export async function grepRipgrep(rg: string, query: GrepQuery, signal: AbortSignal): Promise<GrepResult> {
  const args = [
    "--no-config",
    "--line-number",
    "--with-filename",
    "--no-heading",
    "--color=never",
    "--path-separator=/",
    "--hidden",
    "--no-require-git",
    `--max-columns=${GREP_MAX_LINE_CHARS}`,
    "--max-columns-preview",
    `--max-filesize=${GREP_MAX_FILE_BYTES}`,
    "--iglob=!.git",
    "--iglob=!.downcity",
  ];
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.fixedStrings) args.push("--fixed-strings");
  if (query.include && !query.isFile) args.push(`--glob=${query.include}`);
  if (query.noIgnore) args.push("--no-ignore");
  // Anchored at the root as VS Code's search anchors them (`src/gen` is the root's, `**/out` any).
  for (const glob of query.exclude ?? [])
    args.push(`--glob=!${glob.startsWith("**") || glob.startsWith("/") ? glob : `/${glob}`}`);
  args.push("--regexp", query.pattern);
  // Searching from the root with a relative path makes rg print workspace-relative paths.
  if (query.startRel !== ".") args.push("--", query.startRel);

  const child = spawn(rg, args, { cwd: query.root, stdio: ["ignore", "pipe", "pipe"], signal });
  const lines: string[] = [];
  let limited = false;
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    if (stderr.length < 4_000) stderr += d;
  });
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code));
  });
  const reader = createInterface({ input: child.stdout, crlfDelay: Infinity });
  for await (const line of reader) {
    if (lines.length === query.maxResults) {
      limited = true;
      child.kill();
      break;
    }
    lines.push(line);
  }
  let code: number | null;
  try {
    code = await exit;
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ToolError(`could not run ripgrep (${rg}): ${(err as Error).message}`);
  }
  // 1 = no match; 2 = an error, which still may come with matches (e.g. one unreadable file).
  if (!limited && code === 2 && lines.length === 0) {
    throw new ToolError(`ripgrep failed: ${stderr.trim() || "exit code 2"}`);
  }
  return { lines, limited, engine: "ripgrep" };
}
