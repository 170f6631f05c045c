import type { ChatCore } from "./chat-state";

/**
 * Clicks in the chat that are not a control's own: a link never navigates the webview (the host confirms and opens
 * it), and a code block's Copy and Insert buttons ask the host.
 */
export function onChatClick(app: ChatCore, root: HTMLElement, e: MouseEvent): void {
  const target = e.target as HTMLElement;
  const anchor = target.closest("a");
  if (anchor && root.contains(anchor)) {
    e.preventDefault();
    const href = anchor.getAttribute("href");
    const snapshot = app.state.snapshot;
    if (href && snapshot) void app.call("openLink", { folderKey: snapshot.ref.folderKey, href });
    return;
  }
  const action = target.closest<HTMLElement>("[data-action]");
  if (!action) return;
  const code = action.closest(".code-block")?.querySelector("pre")?.textContent ?? "";
  if (action.dataset.action === "copy") void app.call("copy", { text: code }).then((done) => done && copied(action));
  if (action.dataset.action === "insert") void app.call("insertAtCursor", { text: code });
}

/** "Copied" on the Copy button for a moment (it is re-rendered with the row at the latest). */
function copied(button: HTMLElement): void {
  const label =
    button.querySelector(".copied-text") ??
    button.appendChild(Object.assign(document.createElement("span"), { className: "copied-text" }));
  label.textContent = "Copied";
  button.setAttribute("aria-label", "Copied");
  setTimeout(() => {
    label.remove();
    button.setAttribute("aria-label", "Copy code");
  }, 2000);
}
