import assert from "node:assert/strict";
import { chmodSync, existsSync, lstatSync, readFileSync, readdirSync, statSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { applyEdits } from "../../core/tools/edits";
import { makeWorkspace, text, type Workspace } from "./fixtures";

describe("edit_file", () => {
  let ws: Workspace;
  const read = (rel: string) => readFileSync(path.join(ws.root, rel), "utf8");
  before(() => {
    ws = makeWorkspace();
  });
  after(() => ws.cleanup());

  it("applies several edits in order in one write and reports their lines", async () => {
    await ws.write("a.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const out = await ws.run("edit_file", {
      path: "a.ts",
      edits: [
        { oldText: "const b = 2;", newText: "const b = 20;\nconst b2 = 21;" },
        { oldText: "const c = 3;", newText: "const c = 30;" },
        { oldText: "b2 = 21", newText: "b2 = 22" },
      ],
    });
    assert.equal(out.isError, undefined, text(out));
    assert.equal(read("a.ts"), "const a = 1;\nconst b = 20;\nconst b2 = 22;\nconst c = 30;\n");
    assert.match(text(out), /applied 3 edits\n  edit 1: line 2\n  edit 2: line 4\n  edit 3: line 3/);
  });

  it("changes nothing when any edit fails, and says which and how many matches", async () => {
    const original = "x = 1\ny = 1\nx = 1\n";
    await ws.write("b.py", original);
    const ambiguous = await ws.run("edit_file", {
      path: "b.py",
      edits: [
        { oldText: "y = 1", newText: "y = 2" },
        { oldText: "x = 1", newText: "x = 2" },
      ],
    });
    assert.equal(ambiguous.isError, true);
    assert.match(text(ambiguous), /edit 2 of 2: oldText matches 2 times in b\.py \(lines 1, 3\)\. Nothing was changed/);
    assert.equal(read("b.py"), original);

    const missing = await ws.run("edit_file", {
      path: "b.py",
      edits: [
        { oldText: "y = 1", newText: "y = 2" },
        { oldText: "z = 1", newText: "z = 2" },
      ],
    });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /edit 2 of 2: oldText not found in b\.py \(after applying the previous edits\)/);
    assert.equal(read("b.py"), original);
    assert.deepEqual(
      readdirSync(ws.root).filter((n) => n.endsWith(".tmp")),
      [],
      "no temp files left",
    );
  });

  it("replaceAll replaces every occurrence", async () => {
    await ws.write("c.txt", "foo bar foo baz foo\n");
    const out = await ws.run("edit_file", {
      path: "c.txt",
      edits: [{ oldText: "foo", newText: "qux", replaceAll: true }],
    });
    assert.match(text(out), /edit 1: line 1 \(3 replacements\)/);
    assert.equal(read("c.txt"), "qux bar qux baz qux\n");
  });

  it("refuses identical texts, empty oldText and missing files with clear errors", async () => {
    await ws.write("d.txt", "same\n");
    assert.match(
      text(await ws.run("edit_file", { path: "d.txt", edits: [{ oldText: "same", newText: "same" }] })),
      /identical/,
    );
    const empty = await ws.run("edit_file", { path: "d.txt", edits: [{ oldText: "", newText: "x" }] });
    assert.equal(empty.isError, true);
    assert.match(
      text(await ws.run("edit_file", { path: "nope.txt", edits: [{ oldText: "a", newText: "b" }] })),
      /no such file or directory; use write_file/,
    );
    assert.match(text(await ws.run("edit_file", { path: "d.txt", edits: [] })), /invalid arguments for edit_file/);
  });

  it("edits a CRLF file with LF search text and keeps CRLF line endings", async () => {
    await ws.write("win.txt", "one\r\ntwo\r\nthree\r\n");
    const out = await ws.run("edit_file", { path: "win.txt", edits: [{ oldText: "two\nthree", newText: "2\n3" }] });
    assert.equal(out.isError, undefined, text(out));
    assert.equal(read("win.txt"), "one\r\n2\r\n3\r\n");
  });

  it("preserves the file mode", async () => {
    const file = await ws.write("run.sh", "#!/bin/sh\necho hi\n");
    chmodSync(file, 0o751);
    await ws.run("edit_file", { path: "run.sh", edits: [{ oldText: "hi", newText: "hello" }] });
    assert.equal(statSync(file).mode & 0o7777, 0o751);
    assert.equal(read("run.sh"), "#!/bin/sh\necho hello\n");
  });

  it("refuses binary files", async () => {
    await ws.write("blob.bin", Buffer.from([1, 2, 0, 3]));
    assert.match(
      text(await ws.run("edit_file", { path: "blob.bin", edits: [{ oldText: "\u0001", newText: "x" }] })),
      /binary file/,
    );
  });

  it("applyEdits is pure and all-or-nothing", () => {
    const src = "a b a";
    assert.throws(
      () =>
        applyEdits(
          src,
          [
            { oldText: "b", newText: "c" },
            { oldText: "a", newText: "d" },
          ],
          "f",
        ),
      /matches 2 times/,
    );
    assert.deepEqual(
      applyEdits(
        src,
        [
          { oldText: "b", newText: "a" },
          { oldText: "a a a", newText: "z" },
        ],
        "f",
      ).text,
      "z",
    );
  });
});

describe("write_file", () => {
  let ws: Workspace;
  before(() => {
    ws = makeWorkspace();
  });
  after(() => ws.cleanup());

  it("creates missing parent directories", async () => {
    const out = await ws.run("write_file", { path: "new/deep/dir/file.txt", content: "hello\nworld\n" });
    assert.equal(text(out), "created new/deep/dir/file.txt (12 bytes, 2 lines)");
    assert.equal(readFileSync(path.join(ws.root, "new/deep/dir/file.txt"), "utf8"), "hello\nworld\n");
  });

  it("overwrites atomically, keeping the mode and leaving no temp file", async () => {
    const file = await ws.write("tool.sh", "old\n");
    chmodSync(file, 0o700);
    const out = await ws.run("write_file", { path: "tool.sh", content: "new content\n" });
    assert.match(text(out), /^overwrote tool\.sh/);
    assert.equal(readFileSync(file, "utf8"), "new content\n");
    assert.equal(statSync(file).mode & 0o7777, 0o700);
    assert.deepEqual(
      readdirSync(ws.root).filter((n) => n.includes(".tmp")),
      [],
    );
  });

  it("writes through an in-root symlink to its target, replacing the target file", async () => {
    await ws.write("real/target.txt", "before\n");
    (await import("node:fs")).symlinkSync("real/target.txt", path.join(ws.root, "alias.txt"));
    await ws.run("write_file", { path: "alias.txt", content: "after\n" });
    assert.equal(readFileSync(path.join(ws.root, "real/target.txt"), "utf8"), "after\n");
    assert.ok(lstatSync(path.join(ws.root, "alias.txt")).isSymbolicLink(), "the link itself is kept");
  });

  it("refuses to overwrite a directory", async () => {
    await ws.write("adir/x", "");
    const out = await ws.run("write_file", { path: "adir", content: "x" });
    assert.equal(out.isError, true);
    assert.match(text(out), /adir: is a directory/);
    assert.ok(existsSync(path.join(ws.root, "adir/x")));
  });
});
