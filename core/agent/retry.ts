import { LlmError } from "../llm/types";

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 60_000 };

/**
 * Delay before retry number `attempt` (1-based): the provider's retry-after when it gave
 * one, else exponential backoff with jitter. Undefined: do not retry.
 */
export function retryDelay(
  error: unknown,
  attempt: number,
  policy: RetryPolicy,
  random = Math.random,
): number | undefined {
  if (!(error instanceof LlmError) || !error.retryable || attempt > policy.maxRetries) return undefined;
  if (error.details.retryAfterMs !== undefined) return Math.min(error.details.retryAfterMs, policy.maxDelayMs);
  const exp = policy.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(policy.maxDelayMs, Math.round(exp / 2 + random() * (exp / 2)));
}

/** Resolves after `ms`, or rejects at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
