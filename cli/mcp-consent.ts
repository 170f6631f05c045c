import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";

/** `{ version: 1, folders: { "<folder>": ["<launch fingerprint>", …] } }` */
const ConsentFile = z.object({
  version: z.literal(1),
  folders: z.record(z.string(), z.array(z.string())),
});
type ConsentFile = z.infer<typeof ConsentFile>;

/**
 * The CLI's remembered consent to start a folder's MCP servers, in the user's config
 * directory (never in the folder, which may come from a clone): per folder, keyed by
 * the server's launch fingerprint, so a changed command line, URL, env or cwd asks again.
 * A file that cannot be read is reported once and never overwritten: it loses nothing.
 */
export class CliMcpConsent {
  private data: ConsentFile | undefined;
  private broken: string | undefined;

  constructor(
    readonly file: string,
    private readonly warn: (message: string) => void,
  ) {}

  has(root: string, fingerprint: string): boolean {
    return this.read()?.folders[root]?.includes(fingerprint) ?? false;
  }

  remember(root: string, fingerprint: string): void {
    const data = this.read();
    if (!data) return;
    const list = data.folders[root] ?? [];
    if (list.includes(fingerprint)) return;
    data.folders[root] = [...list, fingerprint];
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, this.file);
    } catch (err) {
      this.warn(`could not remember the consent in ${this.file}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private read(): ConsentFile | undefined {
    if (this.data || this.broken) return this.data;
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return (this.data = { version: 1, folders: {} });
      return this.fail(err instanceof Error ? err.message : String(err));
    }
    try {
      const parsed = ConsentFile.safeParse(JSON.parse(text));
      if (parsed.success) return (this.data = parsed.data);
      return this.fail("it is not a consent file this version reads");
    } catch (err) {
      return this.fail(err instanceof Error ? err.message : String(err));
    }
  }

  private fail(why: string): undefined {
    this.broken = why;
    this.warn(`${this.file} cannot be read (${why}): consent is asked again and not remembered`);
    return undefined;
  }
}
