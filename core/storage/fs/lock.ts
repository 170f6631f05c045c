import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { basename } from "node:path";
import { z } from "zod";
import { readIfExists, writeTemp } from "./atomic";
import { isErrno, type FsSeam } from "./fs-seam";

export const LockOwner = z.object({
  pid: z.number().int(),
  host: z.string(),
  token: z.string(),
  startedAt: z.number(),
});
export type LockOwner = z.infer<typeof LockOwner>;

export interface LockOptions {
  /** A lock whose heartbeat (mtime) is older than this is stale even if its pid looks alive. */
  staleMs: number;
  heartbeatMs: number;
  clock: () => number;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !isErrno(error, "ESRCH");
  }
}

export function describeOwner(owner: LockOwner | undefined): string {
  return owner ? `pid ${owner.pid} on ${owner.host}` : "another process";
}

/**
 * One writer per session: a lock file created exclusively (temp + link, so its content
 * is never seen half-written) holding owner pid, host and token; its mtime is the
 * heartbeat. A lock whose owner is gone (same host, dead pid) or whose heartbeat is
 * older than `staleMs` is taken over.
 */
export class WriterLock {
  private timer: NodeJS.Timeout | undefined;
  private lost = false;

  private constructor(
    private readonly fs: FsSeam,
    readonly path: string,
    readonly owner: LockOwner,
    private readonly options: LockOptions,
    private readonly onLost: (reason: string) => void,
  ) {}

  static async acquire(
    fs: FsSeam,
    path: string,
    options: LockOptions,
    onLost: (reason: string) => void,
  ): Promise<{ lock: WriterLock; tookOver?: string } | { heldBy: LockOwner | undefined }> {
    const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID(), startedAt: options.clock() };
    let tookOver: string | undefined;
    // DESIGN §4, "auxiliary files never block an intact log": a lock that is not a file
    // (a link, a directory or a FIFO from a cloned repository) can never be taken or
    // released. Moved aside instead; a rename moves a link itself, not its target.
    const kind = await fs.lstat(path).then(
      (s) => (s.isFile() ? "file" : "other"),
      () => undefined,
    );
    if (kind === "other") {
      const aside = `${path}.corrupt-${options.clock()}`;
      await fs.rename(path, aside);
      tookOver = `moved aside a writer.lock that is not a file (now ${basename(aside)})`;
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await WriterLock.tryCreate(fs, path, owner)) {
        const lock = new WriterLock(fs, path, owner, options, onLost);
        lock.startHeartbeat();
        return tookOver ? { lock, tookOver } : { lock };
      }
      const current = await WriterLock.read(fs, path);
      if (current === "missing") continue;
      const stale = await WriterLock.staleReason(fs, path, current, options);
      if (!stale) return { heldBy: current ?? undefined };
      // Move the stale lock aside under a unique name, then make sure it was the one
      // we judged: if a live owner replaced it meanwhile, put theirs back.
      const aside = `${path}.stale-${owner.token}`;
      try {
        await fs.rename(path, aside);
      } catch (error) {
        if (isErrno(error, "ENOENT")) continue;
        throw error;
      }
      const moved = await WriterLock.read(fs, aside);
      if (current && moved !== "missing" && moved?.token !== current.token) {
        await fs.link(aside, path).catch(() => {});
        await fs.unlink(aside).catch(() => {});
        return { heldBy: moved ?? undefined };
      }
      await fs.unlink(aside).catch(() => {});
      tookOver = stale;
    }
    return { heldBy: undefined };
  }

  /** Reads the owner: undefined for an unreadable lock (judged by its heartbeat then), "missing" when there is none. */
  static async read(fs: FsSeam, path: string): Promise<LockOwner | undefined | "missing"> {
    const data = await readIfExists(fs, path).catch(() => null);
    if (data === null) return undefined;
    if (!data) return "missing";
    try {
      const parsed = LockOwner.safeParse(JSON.parse(data.toString("utf8")));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private static async tryCreate(fs: FsSeam, path: string, owner: LockOwner): Promise<boolean> {
    const temp = await writeTemp(fs, path, Buffer.from(JSON.stringify(owner)));
    try {
      await fs.link(temp, path);
      return true;
    } catch (error) {
      if (isErrno(error, "EEXIST")) return false;
      throw error;
    } finally {
      await fs.unlink(temp).catch(() => {});
    }
  }

  private static async staleReason(
    fs: FsSeam,
    path: string,
    owner: LockOwner | undefined,
    options: LockOptions,
  ): Promise<string | undefined> {
    if (owner && owner.host === hostname() && !pidAlive(owner.pid))
      return `took over the lock of dead pid ${owner.pid}`;
    let mtime: number;
    try {
      mtime = (await fs.stat(path)).mtimeMs;
    } catch {
      return undefined;
    }
    const age = options.clock() - mtime;
    if (age > options.staleMs)
      return `took over a lock with no heartbeat for ${Math.round(age / 1000)} s (${describeOwner(owner)})`;
    return undefined;
  }

  private startHeartbeat(): void {
    this.timer = setInterval(() => void this.beat(), this.options.heartbeatMs);
    this.timer.unref();
  }

  /** Touches the lock and checks it is still ours; tells the owner when it was lost. */
  async beat(): Promise<void> {
    if (this.lost) return;
    const current = await WriterLock.read(this.fs, this.path).catch(() => undefined);
    if (current === "missing" || current?.token !== this.owner.token) {
      this.lost = true;
      this.stop();
      this.onLost(
        `lost the writer lock to ${current === "missing" ? "nobody (lock removed)" : describeOwner(current)}`,
      );
      return;
    }
    const now = new Date(this.options.clock());
    await this.fs.utimes(this.path, now).catch(() => {});
  }

  get held(): boolean {
    return !this.lost;
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  async release(): Promise<void> {
    this.stop();
    if (this.lost) return;
    this.lost = true;
    const current = await WriterLock.read(this.fs, this.path).catch(() => undefined);
    if (current !== "missing" && current?.token === this.owner.token) await this.fs.unlink(this.path).catch(() => {});
  }
}
