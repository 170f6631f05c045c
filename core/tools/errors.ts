/** A path or command was refused by the sandbox rules; the message says which rule and why. */
export class SandboxError extends Error {
  override readonly name = "SandboxError";
}

/**
 * A tool failed in a way the model can act on (file not found, ambiguous edit…). The
 * registry reports its message as is, without a stack or a "failed" prefix.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
}

/** Turns a Node fs error into a ToolError that names the workspace-relative path. */
export function fsError(err: unknown, shownPath: string): Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new ToolError(`${shownPath}: no such file or directory`);
    case "ENOTDIR":
      return new ToolError(`${shownPath}: a parent of this path is a file, not a directory`);
    case "EISDIR":
      return new ToolError(`${shownPath}: is a directory`);
    case "EACCES":
    case "EPERM":
      return new ToolError(`${shownPath}: permission denied`);
    case "ELOOP":
      return new ToolError(`${shownPath}: too many levels of symbolic links`);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}
