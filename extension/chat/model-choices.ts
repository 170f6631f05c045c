import type { ChatConfig, ModelChoice, SessionRef } from "../../core/protocol";
import { sessionKey } from "../../core/protocol";

/**
 * The model each session's picker chose in this window, over the folder's default. A run gets only a chosen one
 * (`chosen`): without it the runtime applies its own default, which may change with the settings.
 */
export class ModelChoices {
  private readonly models = new Map<string, ModelChoice>();

  constructor(private readonly defaultModel: (folderKey: string) => ModelChoice | undefined) {}

  select(ref: SessionRef, model: ModelChoice): void {
    this.models.set(sessionKey(ref, ref.folderKey), model);
  }

  /** What the session's picker chose, if anything. */
  chosen(ref: SessionRef): ModelChoice | undefined {
    return this.models.get(sessionKey(ref, ref.folderKey));
  }

  /** What the picker shows: the chosen model, else the folder's default. */
  shown(ref: SessionRef): ModelChoice | undefined {
    return this.chosen(ref) ?? this.defaultModel(ref.folderKey);
  }

  /** A choice goes when its profile does; a kept one takes the profile's current window. */
  follow(config: ChatConfig): void {
    for (const [key, chosen] of this.models) {
      if (!config.models.some((m) => m.provider === chosen.provider)) {
        this.models.delete(key);
        continue;
      }
      const configured = config.models.find((m) => m.provider === chosen.provider && m.model === chosen.model);
      if (configured && configured.contextWindow !== chosen.contextWindow) this.models.set(key, configured);
    }
  }
}
