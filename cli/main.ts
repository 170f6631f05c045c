// The `downcity` command: the headless host of the Downcity core.
import { version } from "../package.json";
import { RUN_HELP, SESSIONS_HELP } from "./help";
import { CliError, createOutput, type Output } from "./output";

const HELP = `downcity ${version} — a coding agent whose sessions are never lost

Usage:
  downcity run [options] "prompt"      run the agent on a folder (downcity run --help)
  downcity sessions <command>          list, show, rename, fork, archive, export, compact sessions
  downcity help [command]
  downcity --version

  --verbose                            with any command: show the details of an unexpected failure
`;

async function main(argv: string[], output: Output): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    // Commands load on use (each its own bundle, see esbuild.config.mjs): `--help` loads neither.
    // `require`, not `import()`: the ESM loader would lex the whole CJS bundle for its exports.
    case "run":
      return (require("./commands/run") as typeof import("./commands/run")).runCommand(rest, output);
    case "sessions":
      return (require("./commands/sessions") as typeof import("./commands/sessions")).sessionsCommand(rest, output);
    case "--version":
    case "-v":
      output.out(`${version}\n`);
      return 0;
    case "help":
      output.out(`${rest[0] === "run" ? RUN_HELP : rest[0] === "sessions" ? SESSIONS_HELP : HELP}\n`);
      return 0;
    case undefined:
    case "--help":
    case "-h":
      output.out(HELP);
      return 0;
    default:
      output.err(`unknown command '${command}'\n\n${HELP}`);
      return 2;
  }
}

const output = createOutput();
// --verbose (anywhere) shows the stack of an unexpected failure; without it the message is enough.
const verbose = process.argv.includes("--verbose");
main(
  process.argv.slice(2).filter((a) => a !== "--verbose"),
  output,
).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (CliError.is(err)) {
      output.err(`${output.red("error:")} ${err.message}\n`);
      process.exitCode = err.exitCode;
    } else if (err instanceof Error && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS")) {
      output.err(`${output.red("error:")} ${err.message}\n`);
      process.exitCode = 2;
    } else {
      const text = err instanceof Error ? (verbose ? (err.stack ?? err.message) : err.message) : String(err);
      output.err(`${output.red("error:")} ${text}${verbose ? "" : "\n(run with --verbose for details)"}\n`);
      process.exitCode = 1;
    }
  },
);
