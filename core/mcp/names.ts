import { createHash } from "node:crypto";

/** What every provider accepts as a tool name (the registry enforces the same rule). */
const MAX = 64;

/**
 * The model-facing name of a server's tool: `mcp__<server>__<tool>`, characters outside
 * `[a-zA-Z0-9_-]` replaced by `_`. A name that had to change, or is too long, ends with a
 * short hash of the original pair, so `a.b` and `a_b` (or two long names) stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const raw = `mcp__${server}__${tool}`;
  const clean = raw.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (clean === raw && clean.length <= MAX) return clean;
  const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
  return `${clean.slice(0, MAX - 9)}_${hash}`;
}
