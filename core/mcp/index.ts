export { parseMcpConfig, mergeMcpConfigs, McpInput, type McpSource, type ParsedMcpConfig } from "./config";
export { type McpServerStatus } from "./connection";
export { McpManager, type McpConsentRequest, type McpTools } from "./manager";
export { readMcpFile, WORKSPACE_MCP_FILE } from "./files";
