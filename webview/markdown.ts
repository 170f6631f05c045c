import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";

const languages = { bash, css, diff, go, javascript, json, python, rust, typescript, xml, yaml };
hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["js", "jsx", "mjs"], { languageName: "javascript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);

/** Model output is untrusted: raw HTML off, images never loaded (shown as links), output sanitised. */
const md = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight(code, lang) {
    const name = lang.trim().toLowerCase();
    if (!name || !hljs.getLanguage(name)) return "";
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  },
});
md.disable("image");

const fence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, idx, options, env, self) => {
  const lang = tokens[idx]!.info.trim().split(/\s+/)[0] ?? "";
  return codeBlock(lang, fence(tokens, idx, options, env, self));
};

function codeBlock(lang: string, pre: string): string {
  return (
    `<div class="code-block"><div class="code-toolbar"><span class="code-lang">${md.utils.escapeHtml(lang)}</span>` +
    `<button type="button" class="icon-button" data-action="copy" aria-label="Copy code" title="Copy"><i aria-hidden="true" class="codicon codicon-copy"></i></button>` +
    `<button type="button" class="icon-button" data-action="insert" aria-label="Insert at cursor" title="Insert at cursor"><i aria-hidden="true" class="codicon codicon-insert"></i></button>` +
    `</div>${pre}</div>`
  );
}

const PURIFY = {
  FORBID_TAGS: ["style", "form", "img", "svg", "math", "iframe", "object", "embed", "input", "textarea", "select"],
  FORBID_ATTR: ["style", "srcset", "action", "formaction"],
  ALLOW_DATA_ATTR: true,
};

export function sanitize(html: string): string {
  return DOMPurify.sanitize(html, PURIFY) as unknown as string;
}

/** A whole (finished) message. */
export function renderMarkdown(text: string): string {
  return sanitize(md.render(text));
}

/** Counted so tests can assert that streaming parses only the tail. */
export const markdownStats = { parsedChars: 0 };

const OPEN_FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Incremental rendering of a streamed message: finished top-level blocks (split on
 * markdown-it's token line ranges, not on blank lines) are rendered once and kept;
 * each update re-parses only the text from the last unfinished block on. A code fence
 * that is still open stays plain text until it closes.
 */
export class MarkdownStream {
  /** Sanitised HTML of each finished block, then the tail. */
  readonly blocks: string[] = [];
  private done = 0;
  /** Char offset where the unfinished tail starts. */
  private offset = 0;

  update(text: string): readonly string[] {
    if (text.length < this.offset) this.reset();
    const rest = text.slice(this.offset);
    markdownStats.parsedChars += rest.length;
    const ranges = topLevelRanges(rest);
    const lines = rest.split("\n");
    // Every block but the last is finished: what follows can no longer change it.
    let consumedLines = 0;
    for (let i = 0; i < ranges.length - 1; i++) {
      const next = ranges[i + 1]![0];
      const source = lines.slice(consumedLines, next).join("\n");
      this.blocks[this.done++] = renderMarkdown(source);
      consumedLines = next;
    }
    if (consumedLines > 0) this.offset += lines.slice(0, consumedLines).join("\n").length + 1;
    const tail = lines.slice(consumedLines).join("\n");
    this.blocks.length = this.done;
    if (tail.trim()) this.blocks.push(isOpenFence(tail) ? plainFence(tail) : renderMarkdown(tail));
    return this.blocks;
  }

  private reset(): void {
    this.blocks.length = 0;
    this.done = 0;
    this.offset = 0;
  }
}

function topLevelRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (const token of md.parse(text, {})) {
    if (token.level === 0 && token.map && token.nesting !== -1) out.push([token.map[0], token.map[1]]);
  }
  return out;
}

function isOpenFence(block: string): boolean {
  const lines = block.split("\n");
  const open = OPEN_FENCE.exec(lines[0] ?? "");
  if (!open) return false;
  const marker = open[1]!;
  const close = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}\\s*$`);
  return !lines.slice(1).some((line) => close.test(line));
}

function plainFence(block: string): string {
  const [first = "", ...body] = block.split("\n");
  const lang = first.replace(OPEN_FENCE, "").trim().split(/\s+/)[0] ?? "";
  return sanitize(codeBlock(lang, `<pre><code>${md.utils.escapeHtml(body.join("\n"))}</code></pre>`));
}
