/**
 * The chat's own keys (issue 19 item 6): Escape stops a run, and Tab cycles inside the
 * chat (from the last control back to the first) instead of leaving the webview for the
 * workbench. Enter / Shift+Enter belong to the composer.
 */
export interface ChatKeysHost {
  running(): boolean;
  stop(): void;
}

const FOCUSABLE =
  "button:not([disabled]), textarea:not([disabled]), select:not([disabled]), input:not([disabled]), a[href], [tabindex]:not([tabindex='-1'])";

/** The controls Tab visits, in document order, skipping hidden ones (visibility: hidden buttons, collapsed rows). */
export function tabStops(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => el.tabIndex >= 0 && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden",
  );
}

export function installChatKeys(root: HTMLElement, host: ChatKeysHost): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      // A handler closer to the target used it (closing the file suggestions, leaving a title edit).
      if (e.defaultPrevented || !host.running()) return;
      e.preventDefault();
      host.stop();
      return;
    }
    if (e.key !== "Tab" || e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    const stops = tabStops(root);
    if (!stops.length) return;
    const first = stops[0]!;
    const last = stops[stops.length - 1]!;
    const at = document.activeElement;
    if (!e.shiftKey && (at === last || !root.contains(at))) {
      e.preventDefault();
      first.focus();
    } else if (e.shiftKey && (at === first || !root.contains(at))) {
      e.preventDefault();
      last.focus();
    }
  };
  // The view got focus (Ctrl+Alt+I, the view's focus command): the message box takes it, unless a control in the chat already has it.
  const onFocus = () => {
    const at = document.activeElement;
    if (at && at !== document.body && root.contains(at)) return;
    root.querySelector<HTMLTextAreaElement>("textarea:not([disabled])")?.focus();
  };
  root.addEventListener("keydown", onKey);
  window.addEventListener("focus", onFocus);
  return () => {
    root.removeEventListener("keydown", onKey);
    window.removeEventListener("focus", onFocus);
  };
}
