// Restore (issue 24): the cost of recording and restoring, against Cline's approach (a
// shadow-git commit of the whole folder per step) in the same run, on a 10,000-file folder.
// Run: node --import tsx bench/restore.ts [files]
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyRestore } from "../core/checkpoints/apply";
import { ContentSource } from "../core/checkpoints/content";
import { planRestore } from "../core/checkpoints/plan";
import { takeManifest } from "../core/checkpoints/manifest";
import { CheckpointRecorder } from "../core/checkpoints/recorder";
import { Sessions } from "../core/storage/sessions";
import { sessionPaths } from "../core/storage/layout";
import { atomicWriteFile } from "../core/tools/atomic-write";
import { fmt, median, mib, table, timeMsAsync } from "./stats";

const FILES = Number(process.argv[2] ?? 10_000);
const RUNS = 21;
const execFileAsync = promisify(execFile);
const pct = (part: number, whole: number) => `${fmt((100 * part) / whole, 1)} %`;

/** Times `fn` `runs` times (run i gets i); `prepare` runs untimed before each. */
async function timesOf(
  runs: number,
  fn: (i: number) => unknown,
  prepare: (i: number) => unknown = () => undefined,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    await prepare(i);
    out.push(await timeMsAsync(async () => fn(i)));
  }
  return out;
}

function folder(name: string): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `downcity-bench-restore-${name}-`)));
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(join(root, `pkg${d}`));
    for (let f = 0; f < 100; f++)
      writeFileSync(
        join(root, `pkg${d}`, `file${f}.ts`),
        `// file ${d}/${f}\n${"export const value = 1;\n".repeat(40)}`,
      );
  }
  writeFileSync(join(root, ".gitignore"), ".downcity/\n");
  return root;
}

const git = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  execFileSync(
    "git",
    ["-c", "user.email=b@example.com", "-c", "user.name=b", "-c", "commit.gpgsign=false", "-c", "gc.auto=0", ...args],
    { cwd, env: { PATH: process.env.PATH!, HOME: cwd, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );

async function main(): Promise<void> {
  const rows: (string | number)[][] = [];
  const plain = folder("plain");
  const repo = folder("git");
  git(repo, ["init", "-q"]);
  git(repo, ["add", "-A"]);
  git(repo, ["commit", "-qm", "base"]);
  try {
    // 1. Per recorded edit: an atomic write alone vs the same write recorded (before + after blobs).
    const rec = new CheckpointRecorder({ root: plain, sessionDir: join(plain, ".downcity", "bench-session") });
    const bare: number[] = [];
    const recorded: number[] = [];
    const blobOnly: number[] = [];
    for (let i = 0; i < 200; i++) {
      const file = join(plain, `pkg${i % 100}`, `file${i % 100}.ts`);
      const text = `// edit ${i}\n${"export const value = 2;\n".repeat(40)}`;
      bare.push(await timeMsAsync(() => atomicWriteFile(file, text)));
      recorded.push(
        await timeMsAsync(async () => {
          const pending = await rec.before("edit", { path: `pkg${i % 100}/file${i % 100}.ts` });
          await atomicWriteFile(file, `${text}// recorded\n`);
          await pending!.finish();
        }),
      );
      blobOnly.push(await timeMsAsync(() => rec.blobs.put(Buffer.from(`${text}// blob only ${i}\n`))));
    }
    const overhead = median(recorded) - median(bare);
    rows.push(["edit: atomic write alone", `${fmt(median(bare))} ms`, "", ""]);
    rows.push([
      "edit: recorded (before + after blob)",
      `${fmt(median(recorded))} ms`,
      `overhead ${fmt(overhead)} ms (2 blob writes: ${fmt(2 * median(blobOnly))} ms)`,
      "≤ 1 ms + blob write",
    ]);

    // 2. Per command, no git: the two syncs of the watched manifest around a command that changes nothing
    // (steady state: the first command walks the folder), and around one that changes a file.
    const recordCommand = async (r: CheckpointRecorder, between: () => unknown = () => undefined) => {
      const pending = await r.before("command", {});
      await between();
      return pending!.finish();
    };
    const firstNoGit = await timeMsAsync(() => recordCommand(rec)); // walks the folder and starts the watches
    const noGit = await timesOf(RUNS, () => recordCommand(rec));
    const noGitWrite = await timesOf(RUNS, (i) =>
      recordCommand(rec, () => writeFileSync(join(plain, "pkg3", "file3.ts"), `// command ${i}\n`)),
    );
    const walkOnce = await timesOf(RUNS, () => takeManifest({ root: plain }));
    const unwatched = new CheckpointRecorder({ root: plain, sessionDir: join(plain, ".downcity", "b2"), watch: false });
    const noGitUnwatched = await timesOf(RUNS, () => recordCommand(unwatched));
    rows.push([
      `command, ${FILES} files, no git (2 syncs of the watched manifest)`,
      `${fmt(median(noGit))} ms`,
      `a command that writes 1 file: ${fmt(median(noGitWrite))} ms (its after blob included); the first command ${fmt(firstNoGit)} ms`,
      "≤ 50 ms",
    ]);
    rows.push([
      `  fallback: the watcher off (2 full stat walks)`,
      `${fmt(median(noGitUnwatched))} ms`,
      `one stat walk of the folder (takeManifest): ${fmt(median(walkOnce))} ms`,
      "",
    ]);

    // 3. Per command, git: a file changed before each command (its content is kept as a blob, the
    // write overlapping the command), vs a shadow-git commit per step. Also the overhead on a real
    // command (a spawned `sh -c true`), recorded vs not, in the same loop.
    const grec = new CheckpointRecorder({ root: repo, sessionDir: join(repo, ".downcity", "bench-session") });
    const step = (i: number) => writeFileSync(join(repo, "pkg0", "file0.ts"), `// step ${i}\n`);
    step(-1);
    const firstGit = await timeMsAsync(() => recordCommand(grec)); // full walk + the private-index tree of the folder
    const inGit = await timesOf(RUNS, () => recordCommand(grec), step);
    // Spawned as run_command spawns (async): the blob write started before it overlaps it.
    const shell = () => execFileAsync("sh", ["-c", "true"]);
    const bareShell: number[] = [];
    const recordedShell: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      step(2000 + i);
      bareShell.push(await timeMsAsync(shell));
      step(3000 + i);
      recordedShell.push(await timeMsAsync(() => recordCommand(grec, shell)));
    }
    const gunwatched = new CheckpointRecorder({ root: repo, sessionDir: join(repo, ".downcity", "b3"), watch: false });
    await recordCommand(gunwatched);
    const inGitUnwatched = await timesOf(
      RUNS,
      () => recordCommand(gunwatched),
      (i) => step(4000 + i),
    );
    const writeTree = await timesOf(RUNS, async () => git(repo, ["write-tree"]));
    const shadow = join(tmpdir(), `downcity-bench-shadow-${process.pid}`);
    const shadowEnv = { GIT_DIR: shadow, GIT_WORK_TREE: repo };
    git(repo, ["init", "-q", "--bare", shadow]);
    const first = await timeMsAsync(async () => {
      git(repo, ["add", "-A", "."], shadowEnv);
      git(repo, ["commit", "-qm", "step", "--allow-empty"], shadowEnv);
    });
    const shadowSteps: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      writeFileSync(join(repo, "pkg0", "file0.ts"), `// shadow step ${i}\n`);
      shadowSteps.push(
        await timeMsAsync(async () => {
          git(repo, ["add", "-A", "."], shadowEnv);
          git(repo, ["commit", "-qm", "step", "--allow-empty"], shadowEnv);
        }),
      );
    }
    rmSync(shadow, { recursive: true, force: true });
    const shellOverhead = median(recordedShell) - median(bareShell);
    rows.push([
      `command, ${FILES} files, git (2 syncs + the changed file's blob)`,
      `${fmt(median(inGit))} ms`,
      `${pct(median(inGit), median(shadowSteps))} of a shadow-git step; the first command ${fmt(firstGit)} ms = ${pct(firstGit, first)} of the shadow's first commit`,
      "≤ 10 % of a shadow-git commit",
    ]);
    rows.push([
      `  on a real command (sh -c true: ${fmt(median(bareShell))} ms bare)`,
      `${fmt(median(recordedShell))} ms recorded`,
      `overhead ${fmt(shellOverhead)} ms = ${pct(shellOverhead, median(shadowSteps))} of a shadow-git step`,
      "",
    ]);
    rows.push([
      `  fallback: the watcher off (2 full stat walks)`,
      `${fmt(median(inGitUnwatched))} ms`,
      `${pct(median(inGitUnwatched), median(shadowSteps))} of a shadow-git step; one git write-tree alone ${fmt(median(writeTree))} ms`,
      "",
    ]);
    rows.push([
      `shadow-git commit per step (Cline), steady state`,
      `${fmt(median(shadowSteps))} ms`,
      `first commit ${fmt(first)} ms`,
      "",
    ]);
    await Promise.all([rec, unwatched, grec, gunwatched].map((r) => r.dispose()));

    // 4. Restore of 100 files, preview included, and 5. disk used.
    const sessions = new Sessions({ root: plain, batchWindowMs: 1 });
    const session = sessions.create({ id: "bench", agentId: "code" });
    session.append("user/message", { content: [{ type: "text", text: "edit 100 files" }] }, { surface: "append" });
    await sessions.flush(session);
    const sessionDir = sessionPaths(plain, "code", "bench").dir;
    const recorder = new CheckpointRecorder({ root: plain, sessionDir });
    const mark = session.lastSeq;
    let changedBytes = 0;
    for (let i = 0; i < 100; i++) {
      const rel = `pkg${50 + (i % 50)}/file${i}.ts`;
      const text = `// rewritten ${i}\n${"export const value = 3;\n".repeat(40 + (i % 7))}`;
      const pending = await recorder.before("edit", { path: rel });
      await atomicWriteFile(join(plain, rel), text);
      const checkpoint = await pending!.finish();
      changedBytes += Buffer.byteLength(text) + 1006; // the new content and the original it replaced
      session.append(
        "tool/result",
        { toolCallId: `c${i}`, toolName: "write_file", content: [], checkpoint },
        { surface: "append" },
      );
    }
    await sessions.flush(session);
    const source = new ContentSource(plain, sessionDir);
    let planMs = 0;
    const totalMs = await timeMsAsync(async () => {
      const start = process.hrtime.bigint();
      const plan = await planRestore(session.events(), mark, plain, source);
      planMs = Number(process.hrtime.bigint() - start) / 1e6;
      if (plan.files.length !== 100 || plan.files.some((f) => f.status !== "restore"))
        throw new Error(`unexpected plan: ${JSON.stringify(plan.files.slice(0, 3))}`);
      await applyRestore(plan, source, { session, flush: () => sessions.flush(session), scope: "files" });
    });
    rows.push(["restore of 100 files, preview included", `${fmt(totalMs)} ms`, `preview ${fmt(planMs)} ms`, "≤ 1 s"]);
    const disk = await source.blobs.diskBytes();
    rows.push([
      "disk used by the 100 edits' blobs (+ the restore's)",
      `${fmt(mib(disk), 3)} MiB`,
      `${fmt(disk / changedBytes, 3)} × the changed bytes (${fmt(mib(changedBytes), 3)} MiB raw)`,
      "≤ 1.5× the changed bytes, compressed",
    ]);
    await sessions.close();
  } finally {
    rmSync(plain, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
  table(["figure", "median", "compared", "target"], rows);
}

void main();
