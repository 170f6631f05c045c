import { homedir } from "node:os";
import { join } from "node:path";
import type { SearchHit } from "../../core/protocol/search";
import { inert, inertJson, searchWorkspace, SearchQueryError } from "../../core/runtime/search";
import { CliError, type Output } from "../output";
import type { SessionsValues } from "./sessions";

/** The CLI's index: the user's XDG cache, never the workspace (a `.downcity/` travels with clones). */
export function cliIndexDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith("/") ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "downcity", "search");
}

const LOCATION: Record<SearchHit["location"], string> = {
  context: "",
  folded: "folded",
  closed: "closed history",
  draft: "draft",
};

/** `downcity sessions search QUERY`: hits as they come, newest session first. */
export async function searchCommand(
  root: string,
  query: string | undefined,
  values: SessionsValues,
  agentGiven: boolean,
  output: Output,
): Promise<number> {
  if (query === undefined || query === "") throw new CliError("sessions search needs the text to search for");
  if (values.archived && values.all) throw new CliError("--archived and --all cannot be used together");
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new CliError("--limit must be a positive whole number");
  }
  let hits: AsyncIterable<SearchHit>;
  try {
    hits = searchWorkspace(
      { root, searchIndexDir: cliIndexDir() },
      {
        query,
        area: values.all ? "all" : values.archived ? "archived" : "sessions",
        ...(agentGiven ? { agentId: values.agent } : {}),
        ...(values.regex ? { regex: true } : {}),
        ...(values.word ? { word: true } : {}),
        ...(limit !== undefined ? { limit } : {}),
      },
    );
  } catch (error) {
    if (error instanceof SearchQueryError) throw new CliError(error.message);
    throw error;
  }
  let count = 0;
  try {
    for await (const hit of hits) {
      count++;
      if (values.json) output.out(`${inertJson(hit)}\n`);
      else output.out(formatHit(hit, output));
    }
  } catch (error) {
    // A regex that ran out of its step budget: said plainly, after the hits it found.
    if (error instanceof SearchQueryError) throw new CliError(error.message, 1);
    throw error;
  }
  if (!values.json && count === 0) output.err(`no match for ${JSON.stringify(query)}\n`);
  return count > 0 ? 0 : 1;
}

/** Two lines per hit; every stored string passes through `inert` (no escape sequence reaches the terminal). */
export function formatHit(hit: SearchHit, output: Output): string {
  const when = new Date(hit.time).toISOString().replace("T", " ").slice(0, 16);
  const where = [hit.archived ? "archived" : "", LOCATION[hit.location]].filter(Boolean).join(", ");
  const head = `${when}  ${inert(hit.sessionId)}  ${hit.title !== undefined ? inert(hit.title) : output.dim("(untitled)")}  ${output.dim(`${hit.kind} #${hit.seq}${where ? ` (${where})` : ""}`)}`;
  let snippet = "";
  let at = 0;
  for (const [a, b] of hit.ranges) {
    snippet += inert(hit.snippet.slice(at, a)) + output.bold(inert(hit.snippet.slice(a, b)));
    at = b;
  }
  snippet += inert(hit.snippet.slice(at));
  return `${head}\n    ${snippet}\n`;
}
