import { html, nothing, type TemplateResult } from "lit-html";
import type { SessionSearchHit } from "../../core/protocol";
import type { FindController } from "../find-controller";
import { iconButton } from "./icon-button";

const KIND: Record<SessionSearchHit["kind"], string> = {
  user: "You",
  assistant: "Assistant",
  tool: "Tool",
  title: "Title",
};

/** A snippet with its ranges marked: text bindings only, so model output stays inert. */
export function markedSnippet(snippet: string, ranges: readonly (readonly number[])[]): TemplateResult {
  const parts: TemplateResult[] = [];
  let at = 0;
  for (const [start = 0, end = 0] of [...ranges].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))) {
    if (start < at || end > snippet.length || end <= start) continue;
    parts.push(html`${snippet.slice(at, start)}<mark>${snippet.slice(start, end)}</mark>`);
    at = end;
  }
  parts.push(html`${snippet.slice(at)}`);
  return html`${parts}`;
}

function onKey(find: FindController, e: KeyboardEvent): void {
  if (e.key === "Enter") {
    e.preventDefault();
    find.step(e.shiftKey ? -1 : 1);
  } else if (e.key === "Escape") {
    // The bar's own Escape: it must not also reach the chat (where Escape stops a run).
    e.preventDefault();
    e.stopPropagation();
    find.close();
  }
}

function results(find: FindController): TemplateResult | typeof nothing {
  const s = find.session;
  if (!s) return nothing;
  if (s.state === "searching") return html`<div class="find-results" role="status">Searching this session…</div>`;
  if (!s.hits.length) return html`<div class="find-results" role="status">No match anywhere in this session.</div>`;
  return html`<div class="find-results">
    <div class="find-results-head" role="status">
      ${s.hits.length}${s.more ? "+" : ""} ${s.hits.length === 1 ? "match" : "matches"} in this session
    </div>
    <ul aria-label="Matches in this session">
      ${s.hits.map(
        (hit) =>
          html`<li>
            <button type="button" class="find-hit" @click=${() => void find.reveal({ seq: hit.seq, query: s.query })}>
              <span class="find-hit-kind">${KIND[hit.kind]}</span>
              <span class="find-hit-snippet">${markedSnippet(hit.snippet, hit.ranges)}</span>
              ${hit.location === "context" || hit.location === "draft" ? nothing : html`<span class="badge">closed history</span>`}
            </button>
          </li>`,
      )}
    </ul>
  </div>`;
}

/** The bar over the conversation: query, count, previous / next, whole-session search, close. */
export function findBar(find: FindController): TemplateResult | typeof nothing {
  if (!find.open) return nothing;
  return html`<div class="find-bar" role="search" aria-label="Find in chat">
      <input
        type="text"
        class="find-input"
        aria-label="Find"
        placeholder="Find"
        .value=${find.query}
        @input=${(e: Event) => find.setQuery((e.currentTarget as HTMLInputElement).value)}
        @keydown=${(e: KeyboardEvent) => onKey(find, e)}
      />
      <span class="find-count" role="status" aria-live="polite">${find.status()}</span>
      ${iconButton({
        label: "Previous match",
        icon: "arrow-up",
        title: "Previous match (Shift+Enter)",
        disabled: !find.matches.length,
        onClick: () => find.step(-1),
      })}
      ${iconButton({
        label: "Next match",
        icon: "arrow-down",
        title: "Next match (Enter)",
        disabled: !find.matches.length,
        onClick: () => find.step(1),
      })}
      ${iconButton({
        label: "Search this whole session",
        icon: "search",
        title: "Search this whole session (history not loaded too)",
        disabled: !find.query,
        onClick: () => void find.searchSession(),
      })}
      ${iconButton({ label: "Close find", icon: "close", title: "Close (Escape)", onClick: () => find.close() })}
    </div>
    ${results(find)}`;
}
