import { html, nothing, type TemplateResult } from "lit-html";
import type { Mention, ResolvedAttachment } from "../../core/protocol";

/**
 * The composer's @-menu (issue 25 item 3). Typing `@` opens a listbox of the mention kinds
 * (and, once something is typed, the workspace files it matches, as before); picking
 * `@file` or `@folder` turns the token into `@file:` / `@folder:` and lists the fuzzy
 * matches of what follows (`@file:app.ts:10-20` attaches lines 10 to 20); picking a match
 * or `@problems`, `@selection`, `@terminal` asks the host to resolve it into an attachment
 * chip and removes the token. Arrows move, Enter or Tab pick, Escape closes the menu only.
 */
export interface MenuOption {
  id: string;
  label: string;
  detail?: string;
  icon: string;
  pick: { mode: "file" | "folder" } | { mention: Mention };
}

export interface MentionMenuState {
  options: MenuOption[];
  active: number;
  /** The token being completed (`@fil`, `@file:src/a`), replaced when an option is picked. */
  token: string;
  /** Why the last mention could not be attached (no selection, no shell integration…). */
  error?: string;
}

export interface MentionHost {
  searchFiles(query: string): Promise<string[]>;
  searchFolders(query: string): Promise<string[]>;
  /** The attachment, or the reason it cannot be made. */
  resolve(mention: Mention): Promise<ResolvedAttachment | { error: string }>;
  attach(attachment: ResolvedAttachment): void;
  /** The composer's text changed under the caret (a token replaced). */
  setText(text: string): void;
  refresh(): void;
}

const KINDS: { kind: string; detail: string; icon: string; pick: MenuOption["pick"] }[] = [
  { kind: "file", detail: "a workspace file (path:10-20 for lines)", icon: "file", pick: { mode: "file" } },
  { kind: "folder", detail: "a folder's listing", icon: "folder", pick: { mode: "folder" } },
  {
    kind: "problems",
    detail: "the current problems (diagnostics)",
    icon: "warning",
    pick: { mention: { kind: "problems" } },
  },
  {
    kind: "selection",
    detail: "the active editor's selection",
    icon: "selection",
    pick: { mention: { kind: "selection" } },
  },
  {
    kind: "terminal",
    detail: "recent output of the active terminal",
    icon: "terminal",
    pick: { mention: { kind: "terminal" } },
  },
];

/** The `@…` token just before the caret, if any. */
const TOKEN = /(?:^|\s)(@[^\s@]*)$/;
const RANGE = /^(.*?):(\d+)(?:-(\d+))?$/;
let searchSeq = 0;

export class MentionMenu {
  state: MentionMenuState | undefined;

  constructor(private readonly host: MentionHost) {}

  get open(): boolean {
    return !!this.state && this.state.options.length > 0;
  }

  /**
   * After each input: opens, narrows or closes the menu for the token before the caret.
   * The kinds show at once; the host's file matches join them when they arrive (a stale
   * answer, overtaken by more typing, is dropped).
   */
  update(textBeforeCaret: string): Promise<void> {
    const run = this.run(textBeforeCaret);
    this.inFlight = run;
    void run.finally(() => {
      if (this.inFlight === run) this.inFlight = undefined;
    });
    return run;
  }

  /** The latest update, while its search is on its way: Enter waits for it rather than pick a stale option. */
  private inFlight: Promise<void> | undefined;

  private async run(textBeforeCaret: string): Promise<void> {
    const token = TOKEN.exec(textBeforeCaret)?.[1];
    const seq = ++searchSeq;
    if (!token) {
      if (this.state) this.close();
      return;
    }
    const query = token.slice(1);
    const scoped = /^(file|folder):(.*)$/.exec(query);
    const kinds = scoped ? [] : kindOptions(query);
    if (!scoped) {
      this.state = {
        options: kinds,
        active: Math.min(this.state?.token === token ? this.state.active : 0, Math.max(0, kinds.length - 1)),
        token,
      };
      this.host.refresh();
    }
    const found = await this.search(query, scoped, kinds.length);
    if (seq !== searchSeq) return;
    const options = [...kinds, ...found];
    this.state = {
      options,
      active: Math.min(this.state?.token === token ? this.state.active : 0, Math.max(0, options.length - 1)),
      token,
    };
    this.host.refresh();
  }

  private async search(query: string, scoped: RegExpExecArray | null, kinds: number): Promise<MenuOption[]> {
    if (scoped) {
      const [, mode, rest = ""] = scoped;
      if (mode === "folder")
        return (await this.host.searchFolders(rest)).map((path) => ({
          id: `d:${path}`,
          label: `${path}/`,
          icon: "folder",
          pick: { mention: { kind: "folder", path } },
        }));
      const ranged = RANGE.exec(rest);
      const range = ranged ? { start: Number(ranged[2]), end: Number(ranged[3] ?? ranged[2]) } : undefined;
      const found = await this.host.searchFiles(ranged ? ranged[1]! : rest);
      return found.map((path) =>
        fileOption(
          path,
          range && range.start >= 1
            ? { start: Math.min(range.start, range.end), end: Math.max(range.start, range.end) }
            : undefined,
        ),
      );
    }
    // `@name` with no kind: the files it matches too (what `@` did before the kinds).
    return query && kinds < KINDS.length
      ? (await this.host.searchFiles(query)).slice(0, 12).map((path) => fileOption(path, undefined))
      : [];
  }

  /** Keys while the menu is open; true when the key was the menu's. */
  key(e: KeyboardEvent, textarea: HTMLTextAreaElement): boolean {
    const s = this.state;
    if (!s || !s.options.length) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      s.active = (s.active + (e.key === "ArrowDown" ? 1 : s.options.length - 1)) % s.options.length;
      this.host.refresh();
      return true;
    }
    if ((e.key === "Enter" && !e.shiftKey && !e.isComposing) || e.key === "Tab") {
      e.preventDefault();
      // Options for an older token (the search for what was typed is on its way): pick from its answer instead.
      const typed = TOKEN.exec(textarea.value.slice(0, textarea.selectionStart))?.[1];
      const pending = s.token === typed ? undefined : this.inFlight;
      if (!pending) void this.pick(s.options[s.active]!, textarea);
      else
        void pending.then(() => {
          const now = this.state;
          if (now?.options.length) void this.pick(now.options[now.active]!, textarea);
        });
      return true;
    }
    if (e.key === "Escape") {
      // Closes the menu only: the chat's Escape (stop the run) waits for the next one.
      e.preventDefault();
      this.close();
      return true;
    }
    return false;
  }

  async pick(option: MenuOption, textarea: HTMLTextAreaElement | null): Promise<void> {
    if (!this.state || !textarea) return;
    // The token as the text has it now (typing may be ahead of the options shown).
    const token = TOKEN.exec(textarea.value.slice(0, textarea.selectionStart))?.[1] ?? "";
    if ("mode" in option.pick) {
      this.replaceToken(textarea, token, `@${option.pick.mode}:`);
      await this.update(textarea.value.slice(0, textarea.selectionStart));
      return;
    }
    this.replaceToken(textarea, token, "");
    this.close();
    const result = await this.host.resolve(option.pick.mention);
    if ("error" in result) {
      this.state = { options: [], active: 0, token: "", error: result.error };
      this.host.refresh();
    } else this.host.attach(result);
    textarea.focus();
  }

  close(): void {
    // A search still on its way must not reopen what was just closed.
    ++searchSeq;
    this.state = undefined;
    this.host.refresh();
  }

  /** Replaces the token before the caret, keeping what follows it. */
  private replaceToken(textarea: HTMLTextAreaElement, token: string, by: string): void {
    const caret = textarea.selectionStart;
    const before = textarea.value.slice(0, caret);
    const start = before.length - token.length;
    const head = before.slice(0, start);
    const tail = textarea.value.slice(caret);
    const value = by
      ? head + by + tail
      : (head.replace(/\s+$/, "") + (head.trim() && tail ? " " : "") + tail.replace(/^\s+/, "")).replace(/^\s+$/, "");
    textarea.value = value;
    this.host.setText(value);
    const at = by
      ? head.length + by.length
      : Math.min(value.length, head.replace(/\s+$/, "").length + (head.trim() && tail ? 1 : 0));
    textarea.setSelectionRange(at, at);
  }
}

function kindOptions(query: string): MenuOption[] {
  const lower = query.toLowerCase();
  return KINDS.filter((k) => k.kind.startsWith(lower)).map((k) => ({
    id: `k:${k.kind}`,
    label: `@${k.kind}`,
    detail: k.detail,
    icon: k.icon,
    pick: k.pick,
  }));
}

function fileOption(path: string, range: { start: number; end: number } | undefined): MenuOption {
  return {
    id: `f:${path}`,
    label: range ? `${path}:${range.start}-${range.end}` : path,
    icon: "file",
    pick: { mention: { kind: "file", path, ...(range ? { range } : {}) } },
  };
}

export const MENU_ID = "mention-menu";
export const optionId = (i: number) => `mention-option-${i}`;

export function mentionMenuView(
  menu: MentionMenu,
  textarea: () => HTMLTextAreaElement | null,
): TemplateResult | typeof nothing {
  const s = menu.state;
  if (!s) return nothing;
  if (s.error)
    return html`<div class="mention-error" role="alert">
      <i aria-hidden="true" class="codicon codicon-warning"></i> ${s.error}
    </div>`;
  if (!s.options.length) return nothing;
  return html`<ul class="suggestions mention-menu" role="listbox" id=${MENU_ID} aria-label="Mentions">
    ${s.options.map(
      (o, i) =>
        html`<li
          role="option"
          id=${optionId(i)}
          aria-selected=${i === s.active ? "true" : "false"}
          class=${i === s.active ? "active" : ""}
          @mousedown=${(e: Event) => {
            e.preventDefault();
            void menu.pick(o, textarea());
          }}
        >
          <i aria-hidden="true" class="codicon codicon-${o.icon}"></i>
          <span class="mention-label">${o.label}</span
          >${o.detail ? html` <span class="mention-detail">${o.detail}</span>` : nothing}
        </li>`,
    )}
  </ul>`;
}
