import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import picomatch from "picomatch";
import { ToolError } from "../errors";
import { looksBinary } from "../text";
import { TimeSlicer } from "../time-slice";
import { walkWorkspace } from "../walk";
import { GREP_MAX_FILE_BYTES, GREP_MAX_LINE_CHARS, type GrepQuery, type GrepResult } from "./grep-types";

/**
 * The JavaScript grep used when ripgrep is not on PATH: walks the tree honouring
 * .gitignore (nested files included), skips binary and huge files, matches line by line.
 */
export async function grepJs(query: GrepQuery, signal: AbortSignal): Promise<GrepResult> {
  const regex = compile(query);
  const include = query.include ? picomatch(query.include, { dot: true, basename: true }) : undefined;
  const lines: string[] = [];
  let limited = false;
  let filesSearched = 0;
  const slicer = new TimeSlicer();

  const files: AsyncIterable<{ abs: string; rel: string; kind: string }> = query.isFile
    ? single(query.start, query.startRel)
    : walkWorkspace({ root: query.root, start: query.start, signal });

  for await (const file of files) {
    if (file.kind !== "file") continue; // never follow links out of the tree
    if (include && !query.isFile && !include(file.rel)) continue;
    await slicer.tick(signal);
    const text = readText(file.abs);
    if (text === undefined) continue;
    filesSearched++;
    let lineNo = 0;
    for (const raw of text.split("\n")) {
      lineNo++;
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (!regex.test(line)) continue;
      if (lines.length === query.maxResults) {
        limited = true;
        break;
      }
      const shown = line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}…` : line;
      lines.push(`${file.rel}:${lineNo}:${shown}`);
    }
    if (limited) break;
  }
  return { lines, limited, filesSearched, engine: "js" };
}

function compile(query: GrepQuery): RegExp {
  const source = query.fixedStrings ? query.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : query.pattern;
  try {
    return new RegExp(source, query.ignoreCase ? "i" : "");
  } catch (err) {
    throw new ToolError(`invalid regular expression ${JSON.stringify(query.pattern)}: ${(err as Error).message}`);
  }
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
