import { join } from "node:path";
import { parseArgs } from "node:util";
import type { DamagedFolder } from "../../core/runtime";
import { areaDir } from "../../core/storage/layout";
import { listStored, sortByUpdated } from "../../core/storage/list/list";
import { createStorageContext } from "../../core/storage/context";
import { SESSIONS_HELP } from "../help";
import type { Output } from "../output";
import { workspaceRoot } from "../workspace-root";

// `sessions list` runs from this bundle alone (no zod, no event-log parser: see
// esbuild.config.mjs); every other command requires `sessions-manage` (the whole store).

export const OPTIONS = {
  cwd: { type: "string" },
  agent: { type: "string", default: "code" },
  archived: { type: "boolean", default: false },
  damaged: { type: "boolean", default: false },
  all: { type: "boolean", default: false },
  regex: { type: "boolean", default: false },
  word: { type: "boolean", default: false },
  limit: { type: "string" },
  json: { type: "boolean", default: false },
  before: { type: "string" },
  at: { type: "string" },
  to: { type: "string" },
  "files-only": { type: "boolean", default: false },
  "dry-run": { type: "boolean", default: false },
  overwrite: { type: "boolean", default: false },
  undo: { type: "boolean", default: false },
  format: { type: "string", default: "md" },
  protocol: { type: "string" },
  "base-url": { type: "string" },
  model: { type: "string" },
  "context-window": { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;
export type SessionsValues = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>
>["values"];

export async function sessionsCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const [command, id, ...rest] = positionals;
  if (values.help || !command) {
    output.out(`${SESSIONS_HELP}\n`);
    return values.help ? 0 : 2;
  }
  const root = await workspaceRoot(values.cwd);
  if (command === "list") {
    await list(root, values, output);
    return 0;
  }
  if (command === "search") {
    // Every agent unless --agent names one (its default, code, is for the other commands).
    const agentGiven = argv.some((a) => a === "--agent" || a.startsWith("--agent="));
    const { searchCommand } = require("./sessions-search") as typeof import("./sessions-search");
    return searchCommand(
      root,
      [id, ...rest].filter((p) => p !== undefined).join(" ") || undefined,
      values,
      agentGiven,
      output,
    );
  }
  const { manageCommand } = require("./sessions-manage") as typeof import("./sessions-manage");
  return manageCommand(root, command, id, rest, values, output);
}

/**
 * The stored sessions, newest first: the store's cold list (a CLI process holds no hot
 * session, so this is what `Sessions.list()` returns), without opening the store. With
 * `--damaged`, the folders that list leaves out instead (each log's existence checked).
 */
async function list(root: string, values: SessionsValues, output: Output): Promise<void> {
  const ctx = createStorageContext({ root });
  if (values.damaged) {
    const damaged: DamagedFolder[] = [];
    await listStored(ctx, {
      agentId: values.agent,
      archived: values.archived,
      verifyLogs: true,
      onDamaged: (d) => damaged.push(d),
    });
    damaged.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
    const area = values.archived ? "archived" : "sessions";
    if (values.json) output.json(damaged.map((d) => ({ ...d, path: join(areaDir(root, d.agentId, area), d.folder) })));
    else if (damaged.length === 0)
      output.out(`no damaged ${values.archived ? "archived " : ""}session folders in ${root}\n`);
    else for (const d of damaged) output.out(`${d.folder}  ${output.dim(d.reason)}\n`);
    return;
  }
  const items = sortByUpdated(await listStored(ctx, { agentId: values.agent, archived: values.archived }));
  if (values.json) output.json(items);
  else if (items.length === 0) output.out(`no ${values.archived ? "archived " : ""}sessions in ${root}\n`);
  else
    for (const item of items)
      output.out(
        `${item.sessionId}  ${new Date(item.updatedAt).toISOString().replace("T", " ").slice(0, 16)}  ${String(item.messageCount).padStart(5)} msgs  ${item.title ?? output.dim("(untitled)")}\n`,
      );
}
