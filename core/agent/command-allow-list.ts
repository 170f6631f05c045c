/**
 * The approval allow-list for commands: an entry allows a command line that equals it
 * or starts with it followed by a space ("npm test" allows "npm test -- --watch", not
 * "npm tester"). A line that chains, pipes, redirects or substitutes never matches,
 * since the allowed part could carry anything after it.
 */

// `;` `&` (also `&&`) `|` (also `||`) `>` `<` backticks, `$(` and line breaks.
const SHELL_CONTROL = /[;&|<>`\r\n]|\$\(/;

/** True when the command line could run more than one plain command. */
export function chainsOrRedirects(command: string): boolean {
  return SHELL_CONTROL.test(command);
}

/** Collapses runs of whitespace so "npm  test" and "npm test" are the same line. */
export function normalizeCommandLine(command: string): string {
  return command.trim().replace(/\s+/g, " ");
}

/** Whether `command` is allowed by one of `allowed` (exact command or prefix). */
export function commandAllowed(command: string, allowed: readonly string[]): boolean {
  if (chainsOrRedirects(command)) return false;
  const line = normalizeCommandLine(command);
  if (line === "") return false;
  return allowed.some((entry) => {
    const prefix = normalizeCommandLine(entry);
    if (prefix === "" || chainsOrRedirects(prefix)) return false;
    return line === prefix || line.startsWith(`${prefix} `);
  });
}
