import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import picomatch from "picomatch";
import { ToolError } from "../errors";
import { looksBinary } from "../text";
import { TimeSlicer } from "../time-slice";
import { walkWorkspace } from "../walk";
import { RegexMatcher, type MatchFile } from "./grep-matcher";
import { GREP_MAX_FILE_BYTES, GREP_MAX_LINE_CHARS, type GrepQuery, type GrepResult } from "./grep-types";

/** Text sent to the matcher per round trip: large enough that messaging costs little. */
const BATCH_CHARS = 4 * 1024 * 1024;
/** Default time the regular expression may run over one search. */
export const GREP_JS_TIME_LIMIT_MS = 10_000;

/**
 * The JavaScript grep used when ripgrep is not on PATH: walks the tree honouring
 * .gitignore (nested files included), skips binary and huge files, and matches line by
 * line on a worker thread with a time limit (the pattern is the model's).
 */
export async function grepJs(
  query: GrepQuery,
  signal: AbortSignal,
  timeLimitMs = GREP_JS_TIME_LIMIT_MS,
): Promise<GrepResult> {
  const { source, flags } = compile(query);
  const include = query.include ? picomatch(query.include, { dot: true, basename: true }) : undefined;
  const lines: string[] = [];
  let limited = false;
  let filesSearched = 0;
  const slicer = new TimeSlicer();
  const matcher = new RegexMatcher({ source, flags, maxLineChars: GREP_MAX_LINE_CHARS, timeLimitMs });
  let batch: MatchFile[] = [];
  let batchChars = 0;
  const send = async () => {
    const { lines: found, more } = await matcher.match(batch, query.maxResults - lines.length, signal);
    lines.push(...found);
    limited = more;
    batch = [];
    batchChars = 0;
  };

  const excluded = query.exclude?.length ? picomatch([...query.exclude], { dot: true }) : undefined;
  const files: AsyncIterable<{ abs: string; rel: string; kind: string }> = query.isFile
    ? single(query.start, query.startRel)
    : walkWorkspace({
        root: query.root,
        start: query.start,
        signal,
        gitignore: !query.noIgnore,
        ...(excluded ? { skipDir: excluded } : {}),
      });
  try {
    for await (const file of files) {
      if (file.kind !== "file") continue; // never follow links out of the tree
      if (include && !query.isFile && !include(file.rel)) continue;
      if (excluded && !query.isFile && excluded(file.rel)) continue;
      await slicer.tick(signal);
      const text = readText(file.abs);
      if (text === undefined) continue;
      filesSearched++;
      batch.push({ rel: file.rel, text });
      batchChars += text.length;
      if (batchChars >= BATCH_CHARS) await send();
      if (limited) break;
    }
    if (!limited && batch.length > 0) await send();
  } finally {
    await matcher.close();
  }
  return { lines, limited, filesSearched, engine: "js" };
}

/** Validates the pattern here, so a bad one is a clear error before any worker starts. */
function compile(query: GrepQuery): { source: string; flags: string } {
  const source = query.fixedStrings ? query.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : query.pattern;
  const flags = query.ignoreCase ? "i" : "";
  try {
    new RegExp(source, flags);
  } catch (err) {
    throw new ToolError(`invalid regular expression ${JSON.stringify(query.pattern)}: ${(err as Error).message}`);
  }
  return { source, flags };
}

async function* single(abs: string, rel: string) {
  yield { abs, rel, kind: "file" };
}

/** The file as text, or undefined when it is binary, too large or unreadable (skipped like ripgrep does). */
function readText(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > GREP_MAX_FILE_BYTES) return undefined;
    const bytes = readFileSync(fd);
    if (looksBinary(bytes)) return undefined;
    return bytes.toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
