// Restore (issue 24): the cost of recording and restoring, against Cline's approach (a
// shadow-git commit of the whole folder per step) in the same run, on a 10,000-file folder.
// Run: node --import tsx bench/restore.ts [files]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyRestore } from "../core/checkpoints/apply";
import { ContentSource } from "../core/checkpoints/content";
import { planRestore } from "../core/checkpoints/plan";
import { CheckpointRecorder } from "../core/checkpoints/recorder";
import { Sessions } from "../core/storage/sessions";
import { sessionPaths } from "../core/storage/layout";
import { atomicWriteFile } from "../core/tools/atomic-write";
import { fmt, median, mib, table, timeMsAsync } from "./stats";

const FILES = Number(process.argv[2] ?? 10_000);
const RUNS = 7;

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

    // 2. Per command, no git: two manifests and the diff around a command that changes nothing.
    const noGit: number[] = [];
    for (let i = 0; i < RUNS; i++)
      noGit.push(await timeMsAsync(async () => (await rec.before("command", {}))!.finish()));
    rows.push([`command, ${FILES} files, no git (2 manifests + diff)`, `${fmt(median(noGit))} ms`, "", "≤ 50 ms"]);

    // 3. Per command, git: manifests + the private-index snapshot, vs a shadow-git commit per step.
    const grec = new CheckpointRecorder({ root: repo, sessionDir: join(repo, ".downcity", "bench-session") });
    const inGit: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      writeFileSync(join(repo, "pkg0", "file0.ts"), `// step ${i}\n`);
      inGit.push(await timeMsAsync(async () => (await grec.before("command", {}))!.finish()));
    }
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
    rows.push([
      `command, ${FILES} files, git (manifests + private-index tree)`,
      `${fmt(median(inGit))} ms`,
      `${fmt(median(inGit) / median(shadowSteps))} × a shadow-git step, ${fmt(median(inGit) / first)} × its first commit`,
      "≤ 10 % of a shadow-git commit",
    ]);
    rows.push([
      `shadow-git commit per step (Cline), steady state`,
      `${fmt(median(shadowSteps))} ms`,
      `first commit ${fmt(first)} ms`,
      "",
    ]);

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
