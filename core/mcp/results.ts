import { capOutput } from "../tools/cap";
import type { ToolResultPart } from "../protocol";
import type { ToolOutput } from "../tools/types";

/** The parts of an MCP `tools/call` result this host reads (the SDK has already checked the shape). */
export interface McpCallResult {
  content?: readonly McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}
type McpContent =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string; description?: string }
  | { type: string; [k: string]: unknown };

/** Images larger than this (base64 characters) are described, not kept: they would bloat the log and most providers refuse them. */
export const MAX_IMAGE_CHARS = 1_000_000;
/** What one MCP result may put in the log and in the model's context. */
export const MCP_RESULT_CAP = 32_000;

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * An MCP result as tool output: text as text, images as image parts (within a size
 * limit), embedded resources as their text (binary ones described), links as a line,
 * structured content as JSON when nothing else says it. Text over `cap` is cut head and
 * tail, and the output says the cap and the original size.
 */
export function toToolOutput(result: McpCallResult, cap = MCP_RESULT_CAP): ToolOutput {
  const parts: ToolResultPart[] = [];
  for (const item of result.content ?? []) parts.push(...convert(item));
  if (result.structuredContent !== undefined && !parts.some((p) => p.type === "text")) {
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
  }
  if (parts.length === 0)
    parts.push({ type: "text", text: result.isError ? "(the tool failed and returned no content)" : "(no content)" });
  const output: ToolOutput = { content: parts, ...(result.isError ? { isError: true } : {}) };
  const total = parts.reduce((n, p) => n + (p.type === "text" ? p.text.length : 0), 0);
  if (total <= cap) return output;
  const capped = capOutput(output, cap);
  capped.content.push({
    type: "text",
    text: `[MCP result capped at ${cap.toLocaleString("en-US")} characters: the server returned ${total.toLocaleString("en-US")}]`,
  });
  capped.truncated = true;
  return capped;
}

function convert(item: McpContent): ToolResultPart[] {
  switch (item.type) {
    case "text":
      return [{ type: "text", text: String((item as { text: unknown }).text ?? "") }];
    case "image": {
      const { data, mimeType } = item as { data: string; mimeType: string };
      if (!IMAGE_TYPES.has(mimeType))
        return [{ type: "text", text: `[image ${mimeType}, ${approxBytes(data)} not shown: unsupported type]` }];
      if (data.length > MAX_IMAGE_CHARS)
        return [
          {
            type: "text",
            text: `[image ${mimeType}, ${approxBytes(data)} not kept: over the ${approxBytes(MAX_IMAGE_CHARS)} limit]`,
          },
        ];
      return [{ type: "image", mediaType: mimeType, data }];
    }
    case "audio": {
      const { data, mimeType } = item as { data: string; mimeType: string };
      return [{ type: "text", text: `[audio ${mimeType}, ${approxBytes(data)}: not shown]` }];
    }
    case "resource": {
      const r = (item as { resource: { uri: string; mimeType?: string; text?: string; blob?: string } }).resource;
      const head = `Resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}`;
      if (typeof r.text === "string") return [{ type: "text", text: `${head}:\n${r.text}` }];
      return [{ type: "text", text: `${head}: binary, ${approxBytes(r.blob ?? "")}, not shown` }];
    }
    case "resource_link": {
      const l = item as { uri: string; name?: string; description?: string };
      return [
        {
          type: "text",
          text: `Link: ${l.name ? `${l.name} ` : ""}<${l.uri}>${l.description ? ` — ${l.description}` : ""}`,
        },
      ];
    }
    default:
      return [{ type: "text", text: `[${item.type} content not shown]` }];
  }
}

/** The decoded size of a base64 text (or of its length). */
function approxBytes(base64: string | number): string {
  const bytes = Math.floor(((typeof base64 === "number" ? base64 : base64.length) * 3) / 4);
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}
