import { partialParse } from "openai/_vendor/partial-json-parser/parser";
import type { ToolCallBlock } from "../protocol";

type Args = Record<string, unknown>;

function isObject(value: unknown): value is Args {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Final parse of a model's tool-call arguments. Decision (documented in index.ts): a
 * call whose arguments are not a JSON object keeps `arguments: {}` and carries
 * `invalidArguments { raw, error }`, so nothing is lost and the agent can answer the
 * model with a precise error instead of running the tool on garbage.
 */
export function finalToolCall(id: string, name: string, raw: string): ToolCallBlock {
  const text = raw.trim();
  if (text === "") return { type: "tool-call", id, name, arguments: {} }; // no-argument tools
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return invalid(id, name, raw, `arguments are not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) return invalid(id, name, raw, "arguments must be a JSON object");
  return { type: "tool-call", id, name, arguments: parsed };
}

function invalid(id: string, name: string, raw: string, error: string): ToolCallBlock {
  return { type: "tool-call", id, name, arguments: {}, invalidArguments: { raw, error } };
}

/** Best-effort parse of half-streamed arguments for drafts: what is complete so far, or `{}`. */
export function partialToolArguments(raw: string): Args {
  if (raw.trim() === "") return {};
  try {
    const value: unknown = partialParse(raw);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** Arguments as the wire expects them in history: a JSON string of the object. */
export function argumentsJson(block: ToolCallBlock): string {
  return JSON.stringify(block.arguments);
}
