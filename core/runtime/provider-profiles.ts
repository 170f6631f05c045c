import type { ModelClients } from "../llm/model-clients";
import type { ProviderProfile } from "../llm/types";
import { serverOf } from "../llm/endpoint";

/** The runtime's provider profiles, kept in step with the host's list, and where each points (for errors). */
export class ProviderProfiles {
  private readonly snapshots = new Map<string, string>();

  constructor(
    private readonly modelClients: ModelClients | undefined,
    private readonly providers: () => readonly ProviderProfile[] | Promise<readonly ProviderProfile[]>,
    private readonly providerSetting: ((provider: string) => string | undefined) | undefined,
  ) {}

  /** The server a profile points at and where it is set, for errors that say what to check. */
  endpoint(provider: string): { server?: string; setting: string } {
    const profile = this.modelClients?.profile(provider);
    const server = profile ? serverOf(profile) : undefined;
    const setting = this.providerSetting?.(provider) ?? `the provider profile "${provider}"`;
    return { ...(server ? { server } : {}), setting };
  }

  /** Re-reads the provider profiles; unchanged ones are kept (with what the runtime learnt of their servers). */
  async sync(): Promise<void> {
    if (!this.modelClients) return;
    const profiles: readonly ProviderProfile[] = await this.providers();
    const seen = new Set<string>();
    for (const profile of profiles) {
      seen.add(profile.id);
      const snapshot = JSON.stringify(profile);
      if (this.snapshots.get(profile.id) === snapshot) continue;
      this.modelClients.addProfile(profile);
      this.snapshots.set(profile.id, snapshot);
    }
    for (const id of this.snapshots.keys()) {
      if (seen.has(id)) continue;
      this.modelClients.removeProfile(id);
      this.snapshots.delete(id);
    }
  }
}
