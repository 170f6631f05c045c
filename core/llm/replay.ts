import type { Message, ReplayState } from "../protocol";
import type { ProviderProfile } from "./types";

/**
 * `replayState.adapter` for a profile: protocol + profile id. Two profiles of the same
 * protocol are different adapters — a signature minted for one key/endpoint must not
 * be sent to another.
 */
export function replayAdapterId(profile: Pick<ProviderProfile, "protocol" | "id">): string {
  return `${profile.protocol}:${profile.id}`;
}

/**
 * Drops replayState that another adapter produced. Messages without foreign state are
 * returned as-is (no copy), so the common case costs one pass of comparisons.
 */
export function stripForeignReplayState(messages: readonly Message[], adapterId: string): Message[] {
  let out: Message[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.replayState && message.replayState.adapter !== adapterId) {
      out ??= messages.slice(0, i);
      const { replayState: _dropped, ...rest } = message;
      out.push(rest);
    } else if (out) out.push(message);
  }
  return out ?? (messages as Message[]);
}

/** The replay data of `message` if it was made by `adapterId` with `version`, else undefined. */
export function replayData<T>(message: Message, adapterId: string, version: number): T | undefined {
  const state: ReplayState | undefined = message.replayState;
  if (!state || state.adapter !== adapterId || state.version !== version) return undefined;
  return state.data as T;
}

/**
 * A cheap 32-bit FNV-1a hash of a string, in hex. Replay entries record the hash of the
 * reasoning text they sign, so a block edited later (e.g. pruned by compaction) is sent
 * without its now-invalid signature instead of being rejected by the provider.
 */
export function textHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}
