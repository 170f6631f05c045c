import { createHash, randomBytes } from "node:crypto";
import * as fsp from "node:fs/promises";
import { join } from "node:path";
import type { IndexedSession } from "./search-index";

/**
 * The index on disk, in a directory the host gives (never the workspace):
 * `snapshot.bin` (magic, header length, JSON header, delta-varint postings) and
 * `journal.jsonl` (what was indexed since, one record a line, each naming the snapshot
 * it follows). Anything that does not check out — magic, version,
 * root, checksum, the snapshot's nonce on every journal record, a bad line — makes `load` answer undefined: the index is
 * rebuilt from the logs.
 */
const MAGIC = Buffer.from("DCSI1\n");
// 3: a session's key in the journal is core/protocol's sessionKey (JSON); a version-2 index is rebuilt.
const VERSION = 3;

export type JournalRecord =
  // A Set while pending (a build from nothing writes a snapshot instead: no copy made), an array once read back.
  { t: "u"; id: number; key: string; words: Iterable<string> } | { t: "s"; s: IndexedSession } | { t: "d"; k: string };

export interface Snapshot {
  nextUnit: number;
  units: [number, string][];
  sessions: IndexedSession[];
  words: string[];
  at: number[];
  len: number[];
}

interface Header extends Snapshot {
  version: number;
  root: string;
  /** Random per snapshot: the journal's header and every record name it (two writers can never mix theirs). */
  nonce: string;
  blobSha256: string;
}

const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

async function readOrUndefined(path: string): Promise<Buffer | undefined> {
  try {
    const handle = await fsp.open(path, fsp.constants.O_RDONLY | (fsp.constants.O_NOFOLLOW ?? 0));
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

async function writeAtomic(path: string, data: Buffer): Promise<void> {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await fsp.writeFile(temp, data, { flag: "wx" });
  await fsp.rename(temp, path);
}

export class IndexFiles {
  private nonce = "";
  private snapshotBytes = 0;
  private journalBytes = 0;

  constructor(readonly dir: string) {}

  private get snapshotPath() {
    return join(this.dir, "snapshot.bin");
  }
  private get journalPath() {
    return join(this.dir, "journal.jsonl");
  }

  async load(root: string): Promise<{ snapshot: Snapshot; blob: Buffer; journal: JournalRecord[] } | undefined> {
    const data = await readOrUndefined(this.snapshotPath);
    if (!data || data.length < MAGIC.length + 4 || !data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const headerLength = data.readUInt32BE(MAGIC.length);
    const start = MAGIC.length + 4;
    if (start + headerLength > data.length) return undefined;
    let header: Header;
    try {
      header = JSON.parse(data.subarray(start, start + headerLength).toString("utf8")) as Header;
    } catch {
      return undefined;
    }
    const blob = data.subarray(start + headerLength);
    if (header.version !== VERSION || header.root !== root || header.blobSha256 !== sha(blob)) return undefined;
    if (
      !Array.isArray(header.words) ||
      header.words.length !== header.at?.length ||
      header.words.length !== header.len?.length
    )
      return undefined;
    for (let i = 0; i < header.at.length; i++) if (header.at[i]! + header.len[i]! > blob.length) return undefined;
    const journal: JournalRecord[] = [];
    const text = (await readOrUndefined(this.journalPath))?.toString("utf8") ?? "";
    const lines = text.split("\n");
    // The last piece is empty after a complete line, or a torn write: dropped either way.
    lines.pop();
    let journalOk = false;
    for (let i = 0; i < lines.length; i++) {
      let record: unknown;
      try {
        record = JSON.parse(lines[i]!);
      } catch {
        return undefined;
      }
      const nonce = (record as { n?: unknown }).n;
      if (i === 0) {
        journalOk = (record as { t?: string }).t === "h" && nonce === header.nonce;
        if (!journalOk) break; // a journal of another snapshot: the snapshot alone is consistent
        continue;
      }
      // A record of another writer's snapshot amid ours: nothing after it can be trusted.
      if (nonce !== header.nonce) return undefined;
      journal.push(record as JournalRecord);
    }
    this.nonce = header.nonce;
    this.snapshotBytes = data.length;
    this.journalBytes = journalOk ? Buffer.byteLength(text) : 0;
    if (!journalOk) await this.startJournal();
    return { snapshot: header, blob, journal };
  }

  private async startJournal(): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
    const head = Buffer.from(`${JSON.stringify({ t: "h", n: this.nonce })}\n`);
    await writeAtomic(this.journalPath, head);
    this.journalBytes = head.length;
  }

  /** Appends records (one write); answers whether the journal has grown enough to fold it into a new snapshot. */
  async append(records: JournalRecord[]): Promise<boolean> {
    if (this.snapshotBytes === 0) return true; // no snapshot yet: write one
    const data = Buffer.from(
      records
        .map(
          (r) =>
            `${JSON.stringify(r.t === "u" ? { ...r, words: [...r.words], n: this.nonce } : { ...r, n: this.nonce })}\n`,
        )
        .join(""),
    );
    await fsp.appendFile(this.journalPath, data);
    this.journalBytes += data.length;
    return this.journalBytes > Math.max(1 << 20, this.snapshotBytes / 2);
  }

  async writeSnapshot(root: string, snapshot: Snapshot, blob: Buffer): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
    this.nonce = randomBytes(12).toString("hex");
    const header: Header = { version: VERSION, root, nonce: this.nonce, blobSha256: sha(blob), ...snapshot };
    const json = Buffer.from(JSON.stringify(header));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(json.length);
    const data = Buffer.concat([MAGIC, length, json, blob]);
    await writeAtomic(this.snapshotPath, data);
    this.snapshotBytes = data.length;
    await this.startJournal();
  }

  async clear(): Promise<void> {
    await fsp.rm(this.snapshotPath, { force: true });
    await fsp.rm(this.journalPath, { force: true });
    this.snapshotBytes = 0;
    this.journalBytes = 0;
  }

  async bytes(): Promise<number> {
    let total = 0;
    for (const path of [this.snapshotPath, this.journalPath])
      total += await fsp.stat(path).then(
        (s) => s.size,
        () => 0,
      );
    return total;
  }
}
