import { z } from "zod";
import type { ToolDefinition } from "./types";

/*
 * The model-facing half of every built-in tool: name, description, parameters, policy.
 * Node implementations (node/) and the VS Code host's editor-backed ones spread these,
 * so the model sees one contract whichever host runs the tool.
 */

const PathParam = z.string().min(1).describe("Path relative to the workspace root (absolute paths must be inside it)");

export const ReadFileParams = z.strictObject({
  path: PathParam,
  startLine: z.number().int().min(1).optional().describe("First line to read, 1-based (default 1)"),
  endLine: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Last line to read, 1-based and inclusive (default: as much as fits)"),
});
export type ReadFileParams = z.infer<typeof ReadFileParams>;

export const ListDirParams = z.strictObject({
  path: PathParam.default(".").describe("Directory relative to the workspace root (default: the root)"),
});
export type ListDirParams = z.infer<typeof ListDirParams>;

export const GlobParams = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe("Glob relative to `path`, e.g. `**/*.ts` or `src/*.json`; `*` does not cross `/`"),
  path: PathParam.default(".").describe("Directory to search from (default: the workspace root)"),
});
export type GlobParams = z.infer<typeof GlobParams>;

export const GrepParams = z.strictObject({
  pattern: z.string().min(1).describe("Regular expression to search for, matched line by line"),
  path: PathParam.default(".").describe("File or directory to search (default: the workspace root)"),
  include: z.string().min(1).optional().describe("Only search files matching this glob, e.g. `*.ts` or `src/**/*.md`"),
  ignoreCase: z.boolean().optional().describe("Case-insensitive match"),
  fixedStrings: z.boolean().optional().describe("Treat `pattern` as a literal string, not a regular expression"),
  maxResults: z.number().int().min(1).max(2000).optional().describe("Maximum matching lines (default 200)"),
});
export type GrepParams = z.infer<typeof GrepParams>;

export const TextEditParam = z.strictObject({
  oldText: z.string().min(1).describe("Exact text to find, including whitespace and indentation"),
  newText: z.string().describe("Replacement text"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one"),
});
export type TextEditParam = z.infer<typeof TextEditParam>;

export const EditFileParams = z.strictObject({
  path: PathParam,
  edits: z.array(TextEditParam).min(1).describe("Applied in order, all or none"),
});
export type EditFileParams = z.infer<typeof EditFileParams>;

export const WriteFileParams = z.strictObject({
  path: PathParam,
  content: z.string().describe("The complete new file content"),
});
export type WriteFileParams = z.infer<typeof WriteFileParams>;

export const RunCommandParams = z.strictObject({
  command: z.string().min(1).describe("Shell command, run with /bin/sh -c"),
  cwd: PathParam.default(".").describe("Working directory relative to the workspace root (default: the root)"),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .optional()
    .describe("Kill the command after this long (default 120)"),
});
export type RunCommandParams = z.infer<typeof RunCommandParams>;

export const READ_FILE: ToolDefinition<ReadFileParams> = {
  name: "read_file",
  description:
    "Read a text file of the workspace. Output lines are prefixed with their 1-based line number and a tab " +
    "(not part of the file). Use startLine/endLine to read part of a long file.",
  parameters: ReadFileParams,
  kind: "read",
  readOnly: true,
  describe: (a) =>
    `read ${a.path}${a.startLine || a.endLine ? ` lines ${a.startLine ?? 1}-${a.endLine ?? "end"}` : ""}`,
};

export const LIST_DIR: ToolDefinition<ListDirParams> = {
  name: "list_dir",
  description: "List a directory of the workspace. Directories end with '/', symbolic links show their target.",
  parameters: ListDirParams,
  kind: "read",
  readOnly: true,
  describe: (a) => `list ${a.path}`,
};

export const GLOB: ToolDefinition<GlobParams> = {
  name: "glob",
  description:
    "Find files by glob pattern. Honours .gitignore; .git/ and .downcity/ are skipped. Returns workspace-relative paths.",
  parameters: GlobParams,
  kind: "read",
  readOnly: true,
  describe: (a) => `find files matching ${a.pattern} in ${a.path}`,
};

export const GREP: ToolDefinition<GrepParams> = {
  name: "grep",
  description:
    "Search file contents with a regular expression (ripgrep syntax when available, otherwise JavaScript). " +
    "Honours .gitignore; skips .git/, .downcity/ and binary files. Output: `path:line:text`.",
  parameters: GrepParams,
  kind: "read",
  readOnly: true,
  describe: (a) => `search for /${a.pattern}/ in ${a.path}`,
};

export const EDIT_FILE: ToolDefinition<EditFileParams> = {
  name: "edit_file",
  description:
    "Edit an existing file by exact search and replace. Each oldText must match exactly once (or set replaceAll); " +
    "several edits are applied in order and atomically: if any fails, the file is left unchanged.",
  parameters: EditFileParams,
  kind: "edit",
  readOnly: false,
  describe: (a) => `edit ${a.path} (${a.edits.length} edit${a.edits.length === 1 ? "" : "s"})`,
};

export const WRITE_FILE: ToolDefinition<WriteFileParams> = {
  name: "write_file",
  description: "Create or overwrite a file with the given content. Missing parent directories are created.",
  parameters: WriteFileParams,
  kind: "edit",
  readOnly: false,
  describe: (a) => `write ${a.path} (${Buffer.byteLength(a.content)} bytes)`,
};

export const RUN_COMMAND: ToolDefinition<RunCommandParams> = {
  name: "run_command",
  description:
    "Run a shell command in the workspace (non-interactive: stdin is empty). Returns the exit code, stdout and " +
    "stderr. Secrets are removed from the environment. Long-running commands are killed after the timeout.",
  parameters: RunCommandParams,
  kind: "command",
  readOnly: false,
  describe: (a) => `run \`${a.command}\`${a.cwd && a.cwd !== "." ? ` in ./${a.cwd.replace(/^\.\//, "")}` : ""}`,
};

export const BUILTIN_TOOL_DEFINITIONS = [READ_FILE, LIST_DIR, GLOB, GREP, EDIT_FILE, WRITE_FILE, RUN_COMMAND] as const;
