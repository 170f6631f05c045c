import assert from "node:assert/strict";
import {
  appendFileSync,
  linkSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { WatchedFolder, type FolderSync } from "../../core/checkpoints/folder-watch";
import { diffManifests, takeManifest, type Manifest } from "../../core/checkpoints/manifest";
import { tempDir } from "../support/temp";

const linux = process.platform === "linux";

function seed(root: string, dirs = 5, files = 20): void {
  writeFileSync(join(root, ".gitignore"), "build/\n*.log\n");
  for (let d = 0; d < dirs; d++) {
    mkdirSync(join(root, `src${d}`, "deep"), { recursive: true });
    for (let f = 0; f < files; f++) writeFileSync(join(root, `src${d}`, `f${f}.ts`), `// ${d}/${f}\n`);
    writeFileSync(join(root, `src${d}`, "deep", "x.ts"), "x\n");
  }
  mkdirSync(join(root, "build"));
  writeFileSync(join(root, "build", "out.js"), "ignored\n");
}

/** The sync agrees with a fresh walk of the folder, and its changes are the diff of the two walks. */
async function assertSyncMatchesWalk(
  folder: WatchedFolder,
  root: string,
  previous: Manifest,
  exclude?: (rel: string) => boolean,
): Promise<{ sync: FolderSync; walk: Manifest }> {
  const sync = await folder.sync();
  const walk = await takeManifest({ root, ...(exclude ? { exclude } : {}) });
  assert.deepEqual(new Map(folder.manifest), walk, "the kept manifest is what a full walk lists");
  const diff = diffManifests(previous, walk);
  assert.deepEqual(
    {
      created: sync.changes.filter((c) => !c.before).map((c) => c.rel),
      changed: sync.changes.filter((c) => c.before && c.after).map((c) => c.rel),
      deleted: sync.changes.filter((c) => !c.after).map((c) => c.rel),
    },
    diff,
    "the sync's changes are exactly what two walks would tell apart",
  );
  return { sync, walk };
}

test(
  "kept warm by the watcher, each sync equals a full walk of the folder through creates, edits, deletes, renames of files and directories, new trees and replaced directories",
  { skip: !linux },
  async (t) => {
    const root = tempDir(t);
    seed(root);
    const folder = new WatchedFolder({ root });
    t.after(() => folder.close());
    let { walk } = await assertSyncMatchesWalk(folder, root, new Map());
    assert.equal(folder.counters.fullWalks, 1);
    assert.ok(folder.warm, "a local Linux folder is watched");

    const batches: [string, () => void][] = [
      [
        "create and append",
        () => {
          writeFileSync(join(root, "src0", "new.ts"), "new\n");
          appendFileSync(join(root, "src1", "f1.ts"), "more\n");
        },
      ],
      [
        "delete and rename a file",
        () => {
          unlinkSync(join(root, "src2", "f2.ts"));
          renameSync(join(root, "src3", "f3.ts"), join(root, "src3", "moved.ts"));
        },
      ],
      [
        "a new tree written before its directories could be watched",
        () => {
          mkdirSync(join(root, "fresh", "a", "b"), { recursive: true });
          writeFileSync(join(root, "fresh", "a", "b", "leaf.ts"), "leaf\n");
          writeFileSync(join(root, "fresh", "top.ts"), "top\n");
        },
      ],
      [
        "a file inside the new tree, seen by its own watch now",
        () => {
          writeFileSync(join(root, "fresh", "a", "b", "second.ts"), "2\n");
        },
      ],
      [
        "a directory renamed, then written through its new name",
        () => {
          renameSync(join(root, "src4"), join(root, "src4-renamed"));
          writeFileSync(join(root, "src4-renamed", "deep", "after-move.ts"), "moved\n");
        },
      ],
      [
        "a directory removed and another made under the same name",
        () => {
          rmSync(join(root, "src0"), { recursive: true });
          mkdirSync(join(root, "src0"));
          writeFileSync(join(root, "src0", "only.ts"), "only\n");
        },
      ],
      [
        "a file replaced by a directory and a directory by a file",
        () => {
          unlinkSync(join(root, "src1", "f0.ts"));
          mkdirSync(join(root, "src1", "f0.ts"));
          writeFileSync(join(root, "src1", "f0.ts", "inner.ts"), "inner\n");
          rmSync(join(root, "src2", "deep"), { recursive: true });
          writeFileSync(join(root, "src2", "deep"), "a file now\n");
        },
      ],
      [
        "a symbolic link, and what .gitignore leaves out",
        () => {
          symlinkSync("f5.ts", join(root, "src3", "link.ts"));
          writeFileSync(join(root, "build", "more.js"), "ignored\n");
          writeFileSync(join(root, "src3", "debug.log"), "ignored\n");
          mkdirSync(join(root, ".git"));
          writeFileSync(join(root, ".git", "HEAD"), "never listed\n");
        },
      ],
      ["nothing", () => undefined],
    ];
    for (const [what, change] of batches) {
      change();
      const result = await assertSyncMatchesWalk(folder, root, walk);
      assert.equal(result.sync.full, false, `${what}: a partial sync, not a walk`);
      walk = result.walk;
    }
    assert.equal(folder.counters.fullWalks, 1, "only the first sync walked the folder");
  },
);

test(
  "a steady-state sync costs what changed: one edit in a 2,000-file folder is a handful of lstats and no directory read",
  { skip: !linux },
  async (t) => {
    const root = tempDir(t);
    seed(root, 20, 100);
    const folder = new WatchedFolder({ root });
    t.after(() => folder.close());
    await folder.sync();
    const after = { ...folder.counters };
    assert.ok(after.lstats > 2000, "the first sync stats every file");
    writeFileSync(join(root, "src7", "f7.ts"), "edited\n");
    const sync = await folder.sync();
    assert.deepEqual(
      sync.changes.map((c) => c.rel),
      ["src7/f7.ts"],
    );
    assert.ok(folder.counters.lstats - after.lstats <= 3, `lstats: ${folder.counters.lstats - after.lstats}`);
    assert.equal(folder.counters.readdirs, after.readdirs, "no directory is read again");
    const idle = { ...folder.counters };
    assert.deepEqual((await folder.sync()).changes, []);
    assert.equal(folder.counters.lstats - idle.lstats, 0, "nothing changed: nothing stat'ed");
  },
);

test(
  "a write through a hard link outside the folder raises no event here, yet the next sync sees it (linked files are re-stat'ed)",
  { skip: !linux },
  async (t) => {
    const root = tempDir(t);
    const outside = tempDir(t);
    seed(root, 1, 3);
    linkSync(join(root, "src0", "f1.ts"), join(outside, "alias.ts"));
    const folder = new WatchedFolder({ root });
    t.after(() => folder.close());
    let { walk } = await assertSyncMatchesWalk(folder, root, new Map());
    appendFileSync(join(outside, "alias.ts"), "written elsewhere\n");
    const result = await assertSyncMatchesWalk(folder, root, walk);
    assert.equal(result.sync.full, false);
    assert.deepEqual(
      result.sync.changes.map((c) => c.rel),
      ["src0/f1.ts"],
    );
    walk = result.walk;
  },
);

test("what the watcher cannot vouch for is walked in full: a changed .gitignore or .git/info/exclude, a burst of events, a replaced root, a new exclude setting, and no watching at all", async (t) => {
  const root = tempDir(t);
  seed(root, 2, 5);
  let exclude: (rel: string) => boolean = () => false;
  const folder = new WatchedFolder({ root, exclude: () => exclude });
  t.after(() => folder.close());
  let { walk } = await assertSyncMatchesWalk(folder, root, new Map(), exclude);

  const fullAfter = async (what: string, change: () => void) => {
    change();
    const before = folder.counters.fullWalks;
    const result = await assertSyncMatchesWalk(folder, root, walk, exclude);
    assert.equal(result.sync.full, true, `${what}: walked in full`);
    assert.equal(folder.counters.fullWalks, before + 1);
    walk = result.walk;
  };
  if (linux) {
    // build/ was ignored and never watched: once un-ignored, only a walk can list it.
    await fullAfter(".gitignore edited", () => writeFileSync(join(root, ".gitignore"), "*.log\n"));
    assert.ok(walk.has("build/out.js"));
    // .git/ is never watched, yet its info/exclude rules apply to the whole folder.
    await fullAfter(".git/info/exclude written", () => {
      mkdirSync(join(root, ".git", "info"), { recursive: true });
      writeFileSync(join(root, ".git", "info", "exclude"), "src1/\n");
    });
    assert.ok(![...walk.keys()].some((rel) => rel.startsWith("src1/")));
    await fullAfter("more events than the inotify queue is sure to hold", () => {
      for (let i = 0; i < 5000; i++) writeFileSync(join(root, "src0", `b${i}.txt`), "burst\n");
    });
    await fullAfter("the root replaced under the same path", () => {
      renameSync(root, `${root}.old`);
      mkdirSync(root);
      writeFileSync(join(root, "fresh.txt"), "fresh\n");
      t.after(() => rmSync(`${root}.old`, { recursive: true, force: true }));
    });
  }
  await fullAfter("files.exclude changed", () => {
    exclude = (rel) => rel === "fresh.txt" || rel.startsWith("src0");
  });

  const unwatched = new WatchedFolder({ root, watch: false });
  t.after(() => unwatched.close());
  await unwatched.sync();
  writeFileSync(join(root, "late.txt"), "late\n");
  const sync = await unwatched.sync();
  assert.equal(sync.full, true);
  assert.deepEqual(
    sync.changes.map((c) => [c.rel, c.before === undefined]),
    [["late.txt", true]],
  );
  assert.equal(unwatched.counters.fullWalks, 2);
});
