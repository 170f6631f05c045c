import type * as AnthropicSdk from "@anthropic-ai/sdk";
import type * as OpenAISdk from "openai";
import type { Protocol } from "../types";

/*
 * The provider SDKs load on first use (they are most of a host's start-up cost):
 * `--help`, lists and the extension's activation never pay for them. Error
 * normalisation asks what is loaded; an SDK that never loaded threw nothing.
 */
let openai: typeof OpenAISdk | undefined;
let anthropic: typeof AnthropicSdk | undefined;

// `require`, not `import()`: in the extension each SDK is a CommonJS bundle of its own (esbuild.config.mjs), whose
// `default` only `require` reads as the ES module's.
export async function loadOpenAISdk(): Promise<typeof OpenAISdk> {
  return (openai ??= require("openai") as typeof OpenAISdk);
}
export async function loadAnthropicSdk(): Promise<typeof AnthropicSdk> {
  return (anthropic ??= require("@anthropic-ai/sdk") as typeof AnthropicSdk);
}
export function loadedSdks(): { openai?: typeof OpenAISdk; anthropic?: typeof AnthropicSdk } {
  return { ...(openai ? { openai } : {}), ...(anthropic ? { anthropic } : {}) };
}

/** Loads the SDK `protocol` needs ahead of its first call (a chat that is open and idle warms it up). */
export async function preloadSdk(protocol: Protocol): Promise<void> {
  await (protocol === "anthropic-messages" ? loadAnthropicSdk() : loadOpenAISdk());
}

let fetchLoaded: Promise<void> | undefined;

/**
 * Loads Node's fetch (undici is evaluated on the process's first fetch) with a `data:` URL:
 * no request leaves the machine, and nothing fails if it cannot load.
 */
export function preloadFetch(): Promise<void> {
  return (fetchLoaded ??= fetch("data:,")
    .then((response) => response.arrayBuffer())
    .then(
      () => undefined,
      () => undefined,
    ));
}
