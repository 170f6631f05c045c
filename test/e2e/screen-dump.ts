// What a failed UI step leaves in its error message: the CI shows a failing test's error
// text, not its screenshots, so the text must say what was on screen (round 7: workbench-ui
// step 09 failed in CI with no clue; locally the row it right-clicked was cut off by the
// pane's edge).
import type { Page } from "playwright-core";

/** The bound on the whole dump: a hung page must not hang the failing step. */
const DUMP_MS = 3_000;
/** What it may add to an error message. */
export const DUMP_CHARS = 1_500;

/**
 * A short text of the workbench's state: the Sessions tree's rows (aria-expanded, and
 * whether each is wholly inside its pane), an open context menu's items, the quick input,
 * a dialog, the notification toasts and the focused element. Never throws, never takes
 * longer than DUMP_MS.
 */
export async function screenDump(page: Page): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`(no screen dump: the page did not answer in ${DUMP_MS} ms)`), DUMP_MS);
  });
  // As source text with a local `__name`: tsx (keepNames) wraps the inner functions in calls to it, which the page lacks.
  const read = page
    .evaluate<string[]>(`(() => { const __name = (f) => f; return (${readScreen.toString()})(); })()`)
    .then(
      (lines) => lines.join("\n"),
      (error: unknown) => `(no screen dump: ${String((error as Error)?.message ?? error).split("\n")[0]})`,
    );
  try {
    const text = await Promise.race([read, late]);
    return text.length > DUMP_CHARS ? `${text.slice(0, DUMP_CHARS - 1)}…` : text;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs in the page: one line per part of the screen that shows something. */
function readScreen(): string[] {
  const text = (el: Element | null | undefined, max = 80) => {
    const t = (el?.getAttribute("aria-label") || el?.textContent || "").replace(/\s+/g, " ").trim();
    return t.length > max ? `${t.slice(0, max - 1)}…` : t;
  };
  const shown = (el: Element) => (el as HTMLElement).offsetParent !== null || el.getClientRects().length > 0;
  const lines: string[] = [];

  const pane = Array.from(document.querySelectorAll(".pane")).find((p) =>
    /^sessions/i.test(text(p.querySelector(".pane-header .title")) || text(p.querySelector(".pane-header h3"))),
  );
  const body = pane?.querySelector(".pane-body");
  if (body) {
    const box = body.getBoundingClientRect();
    const rows = Array.from(body.querySelectorAll('.monaco-list-row[role="treeitem"]')).map((row) => {
      const r = row.getBoundingClientRect();
      const open = row.getAttribute("aria-expanded");
      const marks = [
        open === null ? "" : open === "true" ? "open" : "closed",
        r.top < box.top || r.bottom > box.bottom + 0.5 ? "cut off" : "",
        row.classList.contains("focused") ? "focused" : "",
      ].filter(Boolean);
      return `${text(row, 40)}${marks.length ? ` (${marks.join(", ")})` : ""}`;
    });
    lines.push(`Sessions tree: ${rows.length ? rows.join(" | ") : "no rows"}`);
  } else lines.push("Sessions tree: not open");

  const menu = document.querySelector(".context-view .monaco-menu");
  if (menu && shown(menu)) {
    const items = Array.from(menu.querySelectorAll(".action-item"))
      .map((i) => `${text(i.querySelector(".action-label"), 40)}${i.classList.contains("focused") ? " (focused)" : ""}`)
      .filter((t) => t && t !== " (focused)");
    lines.push(`context menu: ${items.join(" | ")}`);
  }

  const quick = document.querySelector(".quick-input-widget");
  if (quick && shown(quick) && (quick as HTMLElement).style.display !== "none") {
    const input = quick.querySelector<HTMLInputElement>(".quick-input-box input");
    const rows = Array.from(quick.querySelectorAll(".quick-input-list .monaco-list-row"))
      .slice(0, 6)
      .map((r) => `${text(r, 40)}${r.classList.contains("focused") ? " (focused)" : ""}`);
    lines.push(
      `quick input: title "${text(quick.querySelector(".quick-input-title"))}", value "${input?.value ?? ""}",` +
        ` placeholder "${input?.placeholder ?? ""}", rows: ${rows.join(" | ") || "none"}`,
    );
  }

  const dialog = document.querySelector(".monaco-dialog-box");
  if (dialog && shown(dialog)) lines.push(`dialog: ${text(dialog, 120)}`);

  const toasts = Array.from(document.querySelectorAll(".notifications-toasts .notification-list-item"))
    .filter(shown)
    .slice(0, 4)
    .map((t) => text(t.querySelector(".notification-list-item-message") ?? t, 100));
  if (toasts.length) lines.push(`toasts: ${toasts.join(" | ")}`);

  const active = document.activeElement;
  if (active) {
    const name = active.tagName.toLowerCase();
    const where = active.closest(".pane")?.querySelector(".pane-header .title, .pane-header h3");
    lines.push(
      `focus: ${name}${active.classList.length ? `.${Array.from(active.classList).slice(0, 3).join(".")}` : ""}` +
        `${active.getAttribute("aria-label") ? ` "${text(active, 40)}"` : ""}${where ? ` in pane "${text(where, 30)}"` : ""}` +
        (name === "iframe" ? " (a webview has the keys)" : ""),
    );
  }
  return lines;
}
