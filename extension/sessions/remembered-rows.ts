import { readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { atomicWriteFile } from "../../core/tools/atomic-write";

/** The file in the workspace's extension storage (outside every folder: a cloned `.downcity/` cannot bring one). */
export const REMEMBERED_FILE = "sessions-first-rows.json";
/** Changes within this delay become one write (a streaming session moves to the top every few hundred ms). */
export const REMEMBER_DELAY_MS = 2_000;
/** A workspace whose folders came and went keeps the rows of its newest folders only. */
const MAX_FOLDERS = 32;
/** Larger than any file this writes (a few hundred refs): anything bigger is not ours and is not read. */
const MAX_BYTES = 1 << 20;

const Ref = z.object({ agentId: z.string().max(1_000), sessionId: z.string().max(1_000) });
const Rows = z.object({ live: z.array(Ref).max(5_000), archived: z.array(Ref).max(5_000) });
const RememberedFile = z.object({ version: z.literal(1), folders: z.record(z.string(), Rows) });
/** A folder's sessions its Sessions view showed first, live and archived (each agent's newest). */
export type RememberedRows = z.infer<typeof Rows>;

/**
 * Which sessions each folder's tree showed first, kept for the next window: it lists those few (one meta.json read
 * each, so every row is as the disk says now) and draws them before its first page, whose one `lstat` per session
 * held the first row back at 10,000 sessions (issue 20). Only ids are kept, never titles; the full list that follows
 * the first draw adds what is newer. Without storage (no folder open) nothing is remembered.
 */
export class RememberedFirstRows {
  private doc: Map<string, RememberedRows> | undefined;
  private readonly pending = new Map<string, () => RememberedRows>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private written = "";
  private failed = false;

  constructor(
    private readonly file: string | undefined,
    private readonly log: (line: string) => void,
    private readonly delayMs = REMEMBER_DELAY_MS,
  ) {}

  /** The rows remembered for a folder (its URI string); undefined on its first open or when the file is unreadable. */
  get(folder: string): RememberedRows | undefined {
    return this.load().get(folder);
  }

  /** Remembers a folder's first rows, taken when the write runs (so many changes cost one snapshot). */
  remember(folder: string, rows: () => RememberedRows): void {
    if (!this.file) return;
    this.pending.set(folder, rows);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.delayMs);
    this.timer.unref?.();
  }

  /** Writes what is pending now (the window closes); resolves when every write so far is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const file = this.file;
    if (!file || this.pending.size === 0) return this.writing;
    const doc = this.load();
    for (const [folder, rows] of this.pending) {
      doc.delete(folder); // re-inserted: the map's order is the folders' last use
      doc.set(folder, rows());
    }
    this.pending.clear();
    for (const folder of [...doc.keys()].slice(0, Math.max(0, doc.size - MAX_FOLDERS))) doc.delete(folder);
    const text = `${JSON.stringify({ version: 1, folders: Object.fromEntries(doc) })}\n`;
    if (text === this.written) return this.writing;
    this.written = text;
    this.writing = this.writing
      .then(() => atomicWriteFile(file, text, { mkdirs: true, mode: 0o600 }))
      .then(
        () => {
          this.failed = false;
        },
        (error: Error) => {
          // Said once until a write succeeds again: it is retried at every change of the rows.
          if (!this.failed) this.log(`remembering the Sessions view's first rows failed: ${error.message}`);
          this.failed = true;
          this.written = "";
        },
      );
    return this.writing;
  }

  private load(): Map<string, RememberedRows> {
    if (this.doc) return this.doc;
    this.doc = new Map();
    if (!this.file) return this.doc;
    let text: string;
    try {
      if (statSync(this.file).size > MAX_BYTES) throw new Error("too large");
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.log(`the Sessions view's remembered rows were not read (${(error as Error).message}): it lists from disk`);
      return this.doc;
    }
    let parsed: ReturnType<typeof RememberedFile.safeParse> | undefined;
    try {
      parsed = RememberedFile.safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      this.log("the Sessions view's remembered rows are not in a form this version reads: it lists from disk");
      return this.doc;
    }
    for (const [folder, rows] of Object.entries(parsed.data.folders)) this.doc.set(folder, rows);
    this.written = text;
    return this.doc;
  }
}
