import { createHash } from "node:crypto";
import { readFileSync, renameSync, statSync } from "node:fs";
import { z } from "zod";
import { atomicWriteFile } from "../tools/atomic-write";

/**
 * What the user allowed for MCP servers: which untrusted servers may start (per folder and
 * launch fingerprint) and which servers or tools run without asking (per folder). One entry
 * is one structured object, so a folder, server or tool name can hold any character.
 */
export const McpTrustDoc = z.object({
  version: z.literal(1),
  consent: z.array(z.object({ folder: z.string().min(1), launch: z.string().min(1) })),
  /** `tool` absent: every tool of the server. */
  always: z.array(
    z.object({ folder: z.string().min(1), server: z.string().min(1), tool: z.string().min(1).optional() }),
  ),
});
export type McpTrustDoc = z.infer<typeof McpTrustDoc>;

export const emptyTrust = (): McpTrustDoc => ({ version: 1, consent: [], always: [] });

/**
 * The launch as the trust record keeps it: a digest, since the fingerprint holds the
 * configured env and headers (which may carry a literal token) and only equality matters.
 */
export const launchDigest = (fingerprint: string) => createHash("sha256").update(fingerprint).digest("hex");

/** Where a host keeps the document: a file (VS Code's per-workspace storage) or a memento. */
export interface McpTrustStore {
  read(): McpTrustDoc;
  /** Applies `change` to the latest document and keeps the result; writes run one at a time. */
  update(change: (doc: McpTrustDoc) => McpTrustDoc): Promise<void>;
}

/**
 * The trust document as a JSON file outside the project (a cloned repository cannot ship
 * its own approvals), written at once (temp + rename, mode 0600) so a killed window keeps
 * what the user allowed. Re-read when the file changed, so another window's answer counts.
 * A file that does not parse, or is not a trust document, is moved aside (`<file>.broken-<ms>`),
 * said through `log`, and treated as empty: the user is asked again, nothing is lost.
 */
export class McpTrustFile implements McpTrustStore {
  private cached: { stamp: string; doc: McpTrustDoc } | undefined;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly log: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  read(): McpTrustDoc {
    let stamp: string;
    try {
      const s = statSync(this.file);
      stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return emptyTrust();
      throw err;
    }
    if (this.cached?.stamp === stamp) return this.cached.doc;
    // A broken file that could not be moved aside is said once, then read as empty.
    this.cached = { stamp, doc: this.parse(readFileSync(this.file, "utf8")) ?? emptyTrust() };
    return this.cached.doc;
  }

  update(change: (doc: McpTrustDoc) => McpTrustDoc): Promise<void> {
    const write = this.writes.then(async () => {
      const next = McpTrustDoc.parse(change(this.read()));
      await atomicWriteFile(this.file, `${JSON.stringify(next, null, 2)}\n`, { mkdirs: true, mode: 0o600 });
    });
    // A failed write fails its caller; the next one still runs.
    this.writes = write.catch(() => undefined);
    return write;
  }

  private parse(text: string): McpTrustDoc | undefined {
    let why: string;
    try {
      const parsed = McpTrustDoc.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      why = "it is not an MCP trust file this version reads";
    } catch (err) {
      why = err instanceof Error ? err.message : String(err);
    }
    const aside = `${this.file}.broken-${this.now()}`;
    try {
      renameSync(this.file, aside);
      this.log(`${this.file} could not be read (${why}): moved to ${aside}; MCP consent is asked again`);
    } catch (err) {
      this.log(
        `${this.file} could not be read (${why}) nor moved aside (${err instanceof Error ? err.message : String(err)}); MCP consent is asked again`,
      );
    }
    return undefined;
  }
}
