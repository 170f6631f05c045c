import type { AgentEvent } from "../protocol";
import type { Session } from "../session";
import { ToolRegistry } from "../tools/registry";
import type { Tool } from "../tools/types";
import type { AgentProfile, WorkspaceRuntimeOptions } from "./types";

/** Each agent's tool registry from the host's tools and the MCP servers' (a registry is kept while its tools are). */
export class AgentTools {
  private readonly registries = new Map<
    string,
    { profile: AgentProfile; tools: readonly Tool[]; registry: ToolRegistry }
  >();

  constructor(
    private readonly options: Pick<WorkspaceRuntimeOptions, "tools" | "mcpTools">,
    private readonly emit: (event: AgentEvent) => void,
  ) {}

  /** The MCP servers' tools; what went wrong with a server is told in the session, and never fails the run. */
  async mcp(session: Session): Promise<readonly Tool[]> {
    if (!this.options.mcpTools) return [];
    const notice = (message: string) =>
      this.emit({
        type: "notice",
        sessionId: session.id,
        agentId: session.agentId,
        level: "warning",
        message,
      });
    try {
      const { tools, notices } = await this.options.mcpTools();
      for (const message of notices) notice(message);
      return tools;
    } catch (err) {
      notice(`MCP tools are unavailable: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    }
  }

  /** The agent's tools from the host's current list (an agent may name a subset), MCP tools after the host's own. */
  registryFor(profile: AgentProfile, extra: readonly Tool[] = []): ToolRegistry {
    const allowed = profile.tools ? new Set(profile.tools) : undefined;
    const tools = [...this.options.tools(), ...extra].filter(
      (tool) => (!allowed || allowed.has(tool.name)) && !profile.forbiddenKinds?.includes(tool.kind),
    );
    // The same tools keep their registry (and its cached JSON schemas).
    const cached = this.registries.get(profile.id);
    if (
      cached &&
      cached.profile === profile &&
      cached.tools.length === tools.length &&
      cached.tools.every((tool, i) => tool === tools[i])
    )
      return cached.registry;
    const registry = new ToolRegistry(tools);
    this.registries.set(profile.id, { profile, tools, registry });
    return registry;
  }
}
