import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseMcpConfig, type McpSource, type ParsedMcpConfig } from "./config";
import { parseJsonc } from "./jsonc";

/** The folder's own file, in VS Code's place for it. */
export const WORKSPACE_MCP_FILE = join(".vscode", "mcp.json");

/** Reads an mcp.json: a missing file is an empty config; unreadable or invalid JSON is one problem, never a throw. */
export async function readMcpFile(path: string, source: McpSource): Promise<ParsedMcpConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { servers: [], problems: [] };
    return { servers: [], problems: [{ source, message: `cannot read ${path}: ${(err as Error).message}` }] };
  }
  let raw: unknown;
  try {
    raw = text.trim() === "" ? {} : parseJsonc(text);
  } catch (err) {
    return {
      servers: [],
      problems: [{ source, message: `${source.label} is not valid JSON: ${(err as Error).message}` }],
    };
  }
  return parseMcpConfig(raw, source);
}
