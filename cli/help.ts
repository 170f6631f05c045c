// Help texts, apart from the commands so `--help` loads nothing else.

export const RUN_HELP = `Usage: downcity run [options] "prompt"

Runs the agent on a folder and streams its answer.

Options:
  --cwd DIR               workspace folder (default: current folder); tools stay inside it
  --agent ID              code (every tool, default) or ask (read-only: no edits, no commands)
  --session ID            continue an existing session
  --approve LEVEL         what runs without asking: none | reads | edits | all (default: reads)
  --max-steps N           model calls per turn (default: 50)
  --json                  one JSON object per session event on stdout
  --protocol P            openai-chat | openai-responses | anthropic-messages (else DOWNCITY_PROTOCOL)
  --base-url URL          provider endpoint (else DOWNCITY_BASE_URL)
  --model ID              model id (else DOWNCITY_MODEL)
  --context-window N      tokens (else DOWNCITY_CONTEXT_WINDOW, else the built-in table)
  -h, --help              this help

Exit codes: 0 answered, 1 failed, 3 stopped at --max-steps, 130 cancelled (Ctrl-C).`;

export const SESSIONS_HELP = `Usage: downcity sessions <command> [options]

Commands:
  list                          sessions of the workspace, newest first
  list --damaged                the folders a list leaves out (no event log, an identity that
                                disagrees with where the folder is), each with the reason
  show ID [--before SEQ]        the Active messages, or the segment before SEQ (history paging),
                                with each compaction: summary, messages closed, usage before/after
  rename ID "title"             rename (pins the title)
  fork ID [--at SEQ]            copy the history (up to SEQ) into a new session
  archive ID | unarchive ID     move to / from the archive
  delete ID                     delete for good
  export ID [--format md|jsonl] the whole history, oldest first
  compact ID                    summarise and close the history now (needs a provider, see run --help)
  search QUERY [--regex] [--word] [--limit N] [--archived | --all]
                                every session's messages, tool calls and results, titles (and what
                                compaction closed): literal, case-insensitive unless QUERY has an
                                upper-case letter; every agent unless --agent; newest session first;
                                exit code 1 when nothing matches

Options:
  --cwd DIR        workspace folder (default: current folder)
  --agent ID       agent id: code (default) or ask
  --archived       list, search: archived sessions instead
  --damaged        list: damaged folders instead (with --archived: those of the archive)
  --all            search: live and archived sessions
  --regex          search: QUERY is an RE2 regular expression (no back-references or look-around)
  --word           search: whole words only
  --limit N        search: at most N hits (default 200)
  --json           machine-readable output
  -h, --help       this help`;
