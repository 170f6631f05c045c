import type { ModelCapabilities, Protocol } from "./types";

type Entry = Omit<ModelCapabilities, "contextWindowSource">;

/**
 * Well-known models by id prefix (longest prefix wins, so dated snapshots such as
 * `claude-sonnet-4-5-20250929` or `gpt-4o-2024-08-06` match their family). Figures are
 * the providers' published limits; anything not listed is unknown, never guessed.
 */
const OPENAI: Record<string, Entry> = {
  "gpt-4o": { contextWindow: 128_000, maxOutputTokens: 16_384, reasoning: false, images: true },
  "gpt-4o-mini": { contextWindow: 128_000, maxOutputTokens: 16_384, reasoning: false, images: true },
  "gpt-4.1": { contextWindow: 1_047_576, maxOutputTokens: 32_768, reasoning: false, images: true },
  "gpt-4-turbo": { contextWindow: 128_000, maxOutputTokens: 4_096, reasoning: false, images: true },
  o1: { contextWindow: 200_000, maxOutputTokens: 100_000, reasoning: true, images: true },
  "o1-mini": { contextWindow: 128_000, maxOutputTokens: 65_536, reasoning: true, images: false },
  o3: { contextWindow: 200_000, maxOutputTokens: 100_000, reasoning: true, images: true },
  "o3-mini": { contextWindow: 200_000, maxOutputTokens: 100_000, reasoning: true, images: false },
  "o4-mini": { contextWindow: 200_000, maxOutputTokens: 100_000, reasoning: true, images: true },
  "gpt-5": { contextWindow: 400_000, maxOutputTokens: 128_000, reasoning: true, images: true },
  "gpt-5-chat": { contextWindow: 128_000, maxOutputTokens: 16_384, reasoning: false, images: true },
  "codex-mini": { contextWindow: 200_000, maxOutputTokens: 100_000, reasoning: true, images: true },
};

const ANTHROPIC: Record<string, Entry> = {
  "claude-3-5-sonnet": { contextWindow: 200_000, maxOutputTokens: 8_192, reasoning: false, images: true },
  "claude-3-5-haiku": { contextWindow: 200_000, maxOutputTokens: 8_192, reasoning: false, images: true },
  "claude-3-7-sonnet": { contextWindow: 200_000, maxOutputTokens: 64_000, reasoning: true, images: true },
  "claude-sonnet-4": { contextWindow: 200_000, maxOutputTokens: 64_000, reasoning: true, images: true },
  "claude-opus-4": { contextWindow: 200_000, maxOutputTokens: 32_000, reasoning: true, images: true },
  "claude-opus-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000, reasoning: true, images: true },
  "claude-haiku-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000, reasoning: true, images: true },
};

const DEEPSEEK: Record<string, Entry> = {
  "deepseek-chat": { contextWindow: 128_000, maxOutputTokens: 8_192, reasoning: false, images: false },
  "deepseek-reasoner": { contextWindow: 128_000, maxOutputTokens: 64_000, reasoning: true, images: false },
};

const BY_PROTOCOL: Record<Protocol, Record<string, Entry>[]> = {
  "openai-chat": [OPENAI, DEEPSEEK, ANTHROPIC], // OpenRouter-style gateways serve every family over chat
  "openai-responses": [OPENAI],
  "anthropic-messages": [ANTHROPIC],
};

/** The built-in entry for a model, or undefined. Gateway prefixes (`openai/gpt-4o`) are ignored. */
export function lookupModel(protocol: Protocol, model: string): Entry | undefined {
  const id = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  let best: Entry | undefined;
  let bestLength = -1;
  for (const table of BY_PROTOCOL[protocol]) {
    for (const prefix in table) {
      if (
        prefix.length > bestLength &&
        (id === prefix || id.startsWith(`${prefix}-`) || id.startsWith(`${prefix}.`) || id.startsWith(`${prefix}:`))
      ) {
        best = table[prefix];
        bestLength = prefix.length;
      }
    }
  }
  return best;
}
