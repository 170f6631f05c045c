import { html, nothing, type TemplateResult } from "lit-html";
import { repeat } from "lit-html/directives/repeat.js";
import { unsafeHTML } from "lit-html/directives/unsafe-html.js";
import type { ContentBlock, ToolCallBlock } from "../../core/protocol";
import { MarkdownStream, renderMarkdown } from "../markdown";
import type { Conversation, Item, ItemOf, ProblemItem } from "../conversation";
import { toolCard, type ToolActions } from "./tool-card";
import { restoreButtons, type RestoreActions } from "./restore-buttons";
import { sentAttachment } from "./mention-chips";

export interface RowContext extends ToolActions, RestoreActions {
  conversation: Conversation;
  /** Keys of `<details>` the user opened, so virtualisation does not close them. */
  open: Set<string>;
  fork(seq: number): void;
  /** Runs the failed turn whose `turn/end` is `turnEnd` again. */
  retry(turnEnd: number): void;
  openSettings(setting: string | undefined): void;
  readOnly: boolean;
}

const clock = (time: number) => new Date(time).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/** Finished messages' HTML by row key and text: re-rendering a row after scrolling costs no parse. */
const htmlCache = new Map<string, string>();
const streams = new Map<string, MarkdownStream>();

function finishedHtml(cacheKey: string, text: string): string {
  const hit = htmlCache.get(cacheKey);
  if (hit !== undefined) return hit;
  const out = renderMarkdown(text);
  if (htmlCache.size > 2000) htmlCache.delete(htmlCache.keys().next().value!);
  htmlCache.set(cacheKey, out);
  return out;
}

function textBlock(key: string, index: number, text: string, streaming: boolean): TemplateResult {
  if (!streaming) {
    streams.delete(`${key}:${index}`);
    return html`<div class="markdown">
      ${unsafeHTML(finishedHtml(`${key}:${index}:${text.length}:${text.slice(-32)}`, text))}
    </div>`;
  }
  let stream = streams.get(`${key}:${index}`);
  if (!stream) streams.set(`${key}:${index}`, (stream = new MarkdownStream()));
  const blocks = stream.update(text);
  // One part per markdown block: lit updates only the part whose HTML changed (the tail).
  return html`<div class="markdown">
    ${repeat(
      blocks,
      (_b, i) => i,
      (b) => html`<div class="md-block">${unsafeHTML(b)}</div>`,
    )}
  </div>`;
}

function details(
  ctx: RowContext,
  key: string,
  summary: TemplateResult | string,
  body: TemplateResult,
  cls: string,
): TemplateResult {
  const onToggle = (e: Event) => {
    const el = e.currentTarget as HTMLDetailsElement;
    if (el.open) ctx.open.add(key);
    else ctx.open.delete(key);
  };
  return html`<details class=${cls} ?open=${ctx.open.has(key)} @toggle=${onToggle}>
    <summary>${summary}</summary>
    ${body}
  </details>`;
}

function blocks(item: ItemOf<"user"> | ItemOf<"assistant">, ctx: RowContext): TemplateResult {
  const streaming = item.kind === "assistant" && item.streaming;
  return html`${item.blocks.map((b: ContentBlock, i: number) => {
    switch (b.type) {
      case "text":
        if (item.kind === "user")
          return b.attachment ? sentAttachment(b.attachment, b.text) : html`<div class="user-text">${b.text}</div>`;
        return textBlock(item.key, i, b.text, streaming);
      case "reasoning":
        return details(
          ctx,
          `${item.key}:r${i}`,
          html`<i aria-hidden="true" class="codicon codicon-lightbulb"></i>
            ${b.redacted ? "Reasoning (redacted)" : "Reasoning"}`,
          html`<div class="reasoning-text">${b.text}</div>`,
          "reasoning",
        );
      case "tool-call":
        return toolCard(b as ToolCallBlock, ctx.conversation.tools.get(b.id), ctx, (k, s, body, c) =>
          details(ctx, `${b.id}:${k}`, s, body, c),
        );
      case "file":
        return html`<div class="file-ref">
          <i aria-hidden="true" class="codicon codicon-file"></i> <a href=${b.uri}>${b.title ?? b.uri}</a>
        </div>`;
      case "image":
        return html`<div class="image-ref">
          <i aria-hidden="true" class="codicon codicon-file-media"></i> image (${b.mediaType})
        </div>`;
      default:
        return nothing;
    }
  })}`;
}

/** A request's failures as one line: retrying (updated in place), recovered, or the turn's error with Retry / Open Settings. */
function problem(item: ProblemItem, ctx: RowContext): TemplateResult {
  const level = item.state === "failed" ? "error" : item.state === "retrying" ? "warning" : "info";
  const icon = item.state === "failed" ? "error" : item.state === "retrying" ? "sync codicon-modifier-spin" : "info";
  const offered = item.state === "failed" && item.retry === "offered" && !ctx.readOnly;
  return html`<div class="notice problem ${level}" role=${item.state === "failed" ? "alert" : "status"}>
    <i aria-hidden="true" class="codicon codicon-${icon}"></i> <span class="problem-text">${item.text}</span>
    ${item.state === "failed" && item.setting && !item.text.includes(item.setting) ? html`<span class="problem-hint">Check ${item.setting}.</span>` : nothing}
    ${item.retry === "retried" ? html`<span class="badge">retried</span>` : nothing}
    ${
      item.state === "failed"
        ? html`<span class="problem-buttons"
            >${offered && item.turnEnd ? html`<button type="button" class="primary" @click=${() => ctx.retry(item.turnEnd!)}>Retry</button>` : nothing}<button
              type="button"
              class="secondary"
              @click=${() => ctx.openSettings(item.setting)}
            >
              Open Settings
            </button></span
          >`
        : nothing
    }
  </div>`;
}

export function renderItem(item: Item, ctx: RowContext): TemplateResult {
  switch (item.kind) {
    case "user":
      return html`<article
        class="message user ${item.queued ? "queued" : ""}"
        aria-label=${item.queued ? "You (queued)" : "You"}
      >
        <div class="message-head">
          <i aria-hidden="true" class="codicon codicon-account"></i><span class="who">You</span>${
            item.queued
              ? html`<span class="badge">${item.undelivered ? "not delivered" : "queued"}</span>`
              : item.origin === "steer"
                ? html`<span class="badge">steer</span>`
                : nothing
          }<time class="time" datetime=${new Date(item.time).toISOString()}>${clock(item.time)}</time
          ><span class="spacer"></span>${
            ctx.readOnly || item.queued
              ? nothing
              : html`${restoreButtons("user", item.seq, ctx)}<button
                    type="button"
                    class="icon-button"
                    aria-label="Fork from here"
                    title="Fork from here"
                    @click=${() => ctx.fork(item.seq)}
                  >
                    <i aria-hidden="true" class="codicon codicon-repo-forked"></i>
                  </button>`
          }
        </div>
        ${blocks(item, ctx)}
      </article>`;
    case "assistant":
      return html`<article
        class="message assistant ${item.streaming ? "streaming" : ""}"
        aria-label="Assistant"
        aria-busy=${item.streaming ? "true" : "false"}
      >
        <div class="message-head">
          <i aria-hidden="true" class="codicon codicon-sparkle"></i><span class="who">Assistant</span>${
            item.model ? html`<span class="model">${item.model}</span>` : nothing
          }${item.interrupted ? html`<span class="badge">interrupted</span>` : nothing}${item.streaming ? nothing : html`<span class="spacer"></span>${restoreButtons("assistant", item.seq, ctx)}`}
        </div>
        ${blocks(item, ctx)}
      </article>`;
    case "summary":
      return html`<section class="summary" aria-label="Summary of earlier history">
        ${details(ctx, item.key, html`<i aria-hidden="true" class="codicon codicon-history"></i> Summary of earlier messages (compacted)`, html`<div class="markdown">${unsafeHTML(finishedHtml(item.key, item.text))}</div>`, "summary-details")}
      </section>`;
    case "compaction":
      return html`<div class="compaction-marker" role="separator">
        <i aria-hidden="true" class="codicon codicon-fold"></i> ${item.text}
      </div>`;
    case "notice":
      return html`<div class="notice ${item.level}" role=${item.level === "error" ? "alert" : "status"}>
        <i
          aria-hidden="true"
          class="codicon codicon-${item.level === "error" ? "error" : item.level === "warning" ? "warning" : "info"}"
        ></i>
        ${item.text}
      </div>`;
    case "problem":
      return problem(item, ctx);
  }
}
