/** Terminal output: colour only on a TTY without NO_COLOR; JSON lines for scripts. */
export interface Output {
  color: boolean;
  out(text: string): void;
  err(text: string): void;
  json(value: unknown): void;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

export function createOutput(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
  env = process.env,
): Output {
  const color = Boolean(stdout.isTTY) && env.NO_COLOR === undefined && env.TERM !== "dumb";
  const wrap = (code: string) => (text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  // A reader that stops early (`… | head`) closes the pipe: that ends the output, it is not a failure.
  stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  return {
    color,
    out: (text) => void stdout.write(text),
    err: (text) => void stderr.write(text),
    json: (value) => void stdout.write(`${JSON.stringify(value)}\n`),
    dim: wrap("2"),
    bold: wrap("1"),
    red: wrap("31"),
    yellow: wrap("33"),
  };
}

/** A CLI failure with a message for the user and an exit code. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }

  /** By name, not `instanceof`: each command is its own bundle with its own copy of this class. */
  static is(err: unknown): err is CliError {
    return err instanceof Error && err.name === "CliError" && typeof (err as CliError).exitCode === "number";
  }
}
