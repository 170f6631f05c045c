import type { ChatConfig } from "../../core/protocol";
import type { ChatFolders, Disposable } from "./folders";

/** The chat's config: providers, models, the agents of every folder, Restricted Mode. */
export async function chatConfig(folders: ChatFolders): Promise<ChatConfig> {
  const agents = new Map<string, string>();
  for (const folder of folders.folders()) for (const agent of folder.runtime.agents) agents.set(agent.id, agent.name);
  const restricted = folders.restricted();
  return {
    providerConfigured: folders.providerConfigured(),
    models: [...(await folders.models())],
    agents: [...agents].map(([id, name]) => ({ id, name })),
    ...(restricted ? { restricted } : {}),
  };
}

/**
 * The config computed (`compute`) once for every view, and pushed to them when provider, model, agent or trust
 * settings change. `before` sees each new config ahead of the views.
 */
export class ConfigFeed {
  private readonly listeners = new Set<(config: ChatConfig) => void>();
  private refreshing: Promise<void> | undefined;
  private stale = false;

  constructor(
    private readonly compute: () => Promise<ChatConfig>,
    private readonly before: (config: ChatConfig) => void,
  ) {}

  onDidChange(listener: (config: ChatConfig) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /**
   * Recomputes the config once for every view. A burst of changes while one is being
   * computed costs one more pass, not one per change. Resolves when the views were told.
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.stale = true;
      return this.refreshing;
    }
    const pass = async () => {
      try {
        do {
          this.stale = false;
          // A config that cannot be computed now (a secret store error) leaves the views as they are.
          const config = await this.compute().catch(() => undefined);
          if (!config) continue;
          this.before(config);
          for (const listener of this.listeners) listener(config);
        } while (this.stale);
      } finally {
        // Cleared in the same tick as the last check, so a change after it starts a new pass.
        this.refreshing = undefined;
      }
    };
    const running = pass();
    this.refreshing = running;
    return running;
  }

  clear(): void {
    this.listeners.clear();
  }
}
