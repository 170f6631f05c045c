// The `downcity` command. Grows with the agent loop (issue 5); today it manages
// nothing but its own help so the quick start has a product to start.
import { version } from "../package.json";

const HELP = `downcity ${version} — a coding agent whose sessions are never lost

Usage:
  downcity run [options] "prompt"      run the agent on a folder
  downcity sessions <command>          list, show, rename, fork, archive, export sessions
  downcity --help | --version
`;

function main(argv: string[]): number {
  if (argv.includes("--version")) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  process.stdout.write(HELP);
  return argv.length === 0 || argv.includes("--help") || argv.includes("-h") ? 0 : 2;
}

process.exitCode = main(process.argv.slice(2));
