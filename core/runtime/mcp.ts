// What hosts use of core/mcp (issue 25) through the runtime's door: the folder's server manager (consent, inputs,
// status) and the mcp.json reading both hosts share. Its own module so the CLI's bundles pull MCP only where they run it.
export { McpManager, type McpConsentRequest, type McpTools } from "../mcp/manager";
export { mergeMcpConfigs, parseMcpConfig, type McpInput, type McpSource, type ParsedMcpConfig } from "../mcp/config";
export type { McpServerStatus } from "../mcp/connection";
export { readMcpFile, WORKSPACE_MCP_FILE } from "../mcp/files";
export { launchDigest, McpTrustDoc, McpTrustFile, emptyTrust, type McpTrustStore } from "../mcp/trust-file";
