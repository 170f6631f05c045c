/** A grep request after sandbox resolution, shared by the ripgrep and JavaScript engines. */
export interface GrepQuery {
  root: string;
  /** Real path of the file or directory to search. */
  start: string;
  /** `start` relative to the root, `/`-separated ("." for the root). */
  startRel: string;
  isFile: boolean;
  pattern: string;
  include?: string;
  ignoreCase: boolean;
  fixedStrings: boolean;
  maxResults: number;
  /** Globs (relative to the root, VS Code's style) whose paths are not searched, directories pruned. */
  exclude?: readonly string[];
  /** Search everything below `start`: .gitignore files are not honoured (an ignored tree named explicitly). */
  noIgnore?: boolean;
}

export interface GrepResult {
  /** `path:line:text`, paths workspace-relative. */
  lines: string[];
  /** More matches existed than `maxResults`. */
  limited: boolean;
  filesSearched?: number;
  engine: "ripgrep" | "js";
}

/** Files larger than this are skipped (logs, dumps): searching them would swamp the result. */
export const GREP_MAX_FILE_BYTES = 16 * 1024 * 1024;
export const GREP_MAX_LINE_CHARS = 300;
