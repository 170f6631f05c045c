import type { Locator } from "playwright-core";

/**
 * Checks the element `locator` resolves to, once a frame, until `check` returns true or
 * `timeoutMs` passes; returns true, or the last thing `check` said (or that nothing matched).
 * The locator is resolved again for every check, so no node is held across frames: the
 * webview's virtual list replaces rows and lit re-creates a message's text node when the
 * message stops streaming; a node held past that is detached (its closest() is null), so
 * `check` must answer a string, not throw, for an element that is not in the page.
 */
export async function untilElement<E extends HTMLElement, A = undefined>(
  locator: Locator,
  check: (el: E, arg: A) => true | string,
  timeoutMs: number,
  arg?: A,
): Promise<true | string> {
  const deadline = Date.now() + timeoutMs;
  // Each call waits for the locator to match for at most the time left.
  const left = () => ({ timeout: Math.max(1, deadline - Date.now()) });
  const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
  let last = "nothing matched";
  try {
    for (;;) {
      const seen = await locator.evaluate(check as (el: HTMLElement, arg: unknown) => true | string, arg, left());
      if (seen === true) return true;
      last = seen;
      if (Date.now() >= deadline) return last;
      await locator.evaluate(nextFrame, undefined, left());
    }
  } catch (error) {
    if ((error as Error).name !== "TimeoutError") throw error;
    return `${last} (then ${locator} matched nothing within ${timeoutMs} ms)`;
  }
}
