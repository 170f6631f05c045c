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
  --mcp-trust             start the folder's .vscode/mcp.json servers without asking (else asked on a
                          TTY, refused without one; a "y" is remembered per folder and command line in
                          $XDG_CONFIG_HOME/downcity/mcp-consent.json); the user's servers: .../downcity/mcp.json
  --mcp-allow S[/TOOL]    MCP calls of server S (or one tool) that run without asking; repeatable
  --no-mcp                start no MCP server
  -h, --help              this help

MCP inputs (\${input:ID}) come from the environment: DOWNCITY_MCP_INPUT_<ID> (upper case, _ for others).

The folder's AGENTS.md (and those of the folders the task touches) go into the system
prompt; DOWNCITY_RULES_FILES adds others, comma-separated (CLAUDE.md,.github/copilot-instructions.md,
.clinerules), and DOWNCITY_RULES_MAX_TOKENS sets their budget (default 8000).

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
  restore ID --to SEQ [--files-only] [--dry-run] [--overwrite] [--json]
                                put the files the agent changed back as they were right after SEQ
                                (0: before the first event), previewed first; the conversation
                                continues from SEQ in a fork unless --files-only; files you changed
                                since the agent did are kept unless --overwrite; files whose earlier
                                content is unknown are listed (exit code 1)
  restore ID --undo             undo the session's latest restore
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
