// The tool contract every host shares. Node implementations: `core/tools/node`.
export {
  textOutput,
  type ToolKind,
  type ToolContext,
  type ToolOutput,
  type McpToolFacts,
  type Tool,
  DEFAULT_MAX_RESULT_CHARS,
} from "./types";
export { SandboxError, ToolError } from "./errors";
export { isProtectedName, displayPath, resolveInsideRoot } from "./sandbox";
export { capOutput } from "./cap";
export { atomicWriteFile } from "./atomic-write";
export { looksBinary, plural } from "./text";
export { planEdit, writeDetails } from "./edit-text";
export {
  ReadFileParams,
  ListDirParams,
  GlobParams,
  GrepParams,
  EditFileParams,
  WriteFileParams,
  RunCommandParams,
  READ_FILE,
  LIST_DIR,
  GLOB,
  GREP,
  EDIT_FILE,
  WRITE_FILE,
} from "./definitions";
export { ToolRegistry } from "./registry";
