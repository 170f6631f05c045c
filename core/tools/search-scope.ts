import { ToolError } from "./errors";
import { gitignoreVerdicts } from "./gitignore";
import { PROTECTED_DIRS, isProtectedName } from "./sandbox";

/**
 * Refuses a glob or grep aimed into .git/ or .downcity/ (`path: ".git"`, `.git/**`): the
 * tools' descriptions say they skip those folders, so naming one is an error rather than
 * a way in (and never "no match", which would read as "nothing there").
 */
export function refuseProtectedSearch(tool: "glob" | "grep", rel: string): void {
  const hit = rel.split("/").find(isProtectedName);
  if (hit === undefined) return;
  throw new ToolError(
    `${tool} does not search inside ${hit}/: ${PROTECTED_DIRS.map((d) => `${d}/`).join(" and ")} are never searched` +
      " (read_file and list_dir can read a file or folder there)",
  );
}

/**
 * The folder that .gitignore ignores (the one named, or the first above it), or undefined.
 * A search that names an ignored folder searches it whole and says so.
 */
export function ignoredNamedDir(root: string, rel: string): string | undefined {
  if (rel === "." || rel === "") return undefined;
  const verdicts = gitignoreVerdicts(root);
  const parts = rel.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    if (verdicts.dir(dir)) return dir;
  }
  return undefined;
}

/** The note a search that entered an ignored folder because it was named ends with. */
export function searchedIgnoredNote(dir: string, by: string, what: "the pattern names it" | "it was named"): string {
  return `[searched ${dir}/, which ${by} ignores, because ${what}]`;
}
