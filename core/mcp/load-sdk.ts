// The MCP SDK (core/mcp/sdk.ts) is evaluated at the first server start, not when the extension host loads.
export type McpSdk = typeof import("./sdk");

let loading: Promise<McpSdk> | undefined;
/** The SDK, imported once at the first call. */
export function mcpSdk(): Promise<McpSdk> {
  return (loading ??= import("./sdk"));
}
