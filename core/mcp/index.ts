export * from "./config";
export {
  McpConnection,
  DEFAULT_BACKOFF,
  type BackoffPolicy,
  type McpLog,
  type McpServerState,
  type McpServerStatus,
  type DisabledTool,
} from "./connection";
export { McpManager, type McpConsentRequest, type McpHostOptions, type McpTools } from "./manager";
export { mcpToolName } from "./names";
export { toToolOutput, MCP_RESULT_CAP, MAX_IMAGE_CHARS } from "./results";
export { checkInputSchema } from "./schema";
export { readMcpFile, WORKSPACE_MCP_FILE } from "./files";
export { parseJsonc } from "./jsonc";
