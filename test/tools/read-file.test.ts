import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { makeWorkspace, text, type Workspace } from "./fixtures";

describe("read_file", () => {
  let ws: Workspace;
  before(async () => {
    ws = makeWorkspace();
    await ws.write("ten.txt", Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    await ws.write("crlf.txt", "a\r\nb\r\n");
    await ws.write("empty.txt", "");
    await ws.write("no-newline.txt", "one\ntwo");
    await ws.write("image.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]));
    await ws.write("big.txt", Array.from({ length: 50_000 }, (_, i) => `row ${i + 1} ${"x".repeat(40)}`).join("\n"));
    await ws.write(".git/HEAD", "ref: refs/heads/main\n");
  });
  after(() => ws.cleanup());

  it("shows the whole small file with 1-based line numbers", async () => {
    const out = await ws.run("read_file", { path: "ten.txt" });
    assert.equal(out.isError, undefined);
    const lines = text(out).split("\n");
    assert.equal(lines.length, 10);
    assert.equal(lines[0], "     1\tline 1");
    assert.equal(lines[9], "    10\tline 10");
  });

  it("reads an inclusive 1-based range and says where the file continues", async () => {
    const t = text(await ws.run("read_file", { path: "ten.txt", startLine: 3, endLine: 5 }));
    assert.equal(t.split("\n").slice(0, 3).join("|"), "     3\tline 3|     4\tline 4|     5\tline 5");
    assert.match(t, /showing lines 3-5; the file continues, read on with startLine 6/);
  });

  it("clamps endLine past the end without a continuation note", async () => {
    const t = text(await ws.run("read_file", { path: "ten.txt", startLine: 9, endLine: 99 }));
    assert.equal(t, "     9\tline 9\n    10\tline 10");
  });

  it("refuses a startLine past the end and an endLine before startLine", async () => {
    const past = await ws.run("read_file", { path: "ten.txt", startLine: 11 });
    assert.equal(past.isError, true);
    assert.match(text(past), /has 10 lines; startLine 11 is past the end/);
    const backwards = await ws.run("read_file", { path: "ten.txt", startLine: 5, endLine: 4 });
    assert.match(text(backwards), /endLine \(4\) is before startLine \(5\)/);
    const zero = await ws.run("read_file", { path: "ten.txt", startLine: 0 });
    assert.equal(zero.isError, true);
  });

  it("strips CR of CRLF lines and keeps a last line without newline", async () => {
    assert.equal(text(await ws.run("read_file", { path: "crlf.txt" })), "     1\ta\n     2\tb");
    assert.equal(text(await ws.run("read_file", { path: "no-newline.txt" })), "     1\tone\n     2\ttwo");
  });

  it("reports empty, binary, missing and directory paths clearly", async () => {
    assert.match(text(await ws.run("read_file", { path: "empty.txt" })), /empty\.txt is empty/);
    const bin = await ws.run("read_file", { path: "image.png" });
    assert.equal(bin.isError, true);
    assert.match(text(bin), /image\.png is a binary file \(8 bytes\)/);
    const missing = await ws.run("read_file", { path: "nope.txt" });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /^nope\.txt: no such file or directory$/);
    const dir = await ws.run("read_file", { path: ".git" });
    assert.match(text(dir), /is a directory; use list_dir/);
  });

  it("may read inside .git", async () => {
    assert.match(text(await ws.run("read_file", { path: ".git/HEAD" })), /ref: refs\/heads\/main/);
  });

  it("stops a long file at whole lines within the cap and says how to continue", async () => {
    const out = await ws.run("read_file", { path: "big.txt" });
    const t = text(out);
    assert.ok(t.length <= 32_000);
    assert.match(t, /\[output limit reached: showing lines 1-(\d+); continue with startLine (\d+)\]$/);
    const [, last, next] = /lines 1-(\d+); continue with startLine (\d+)/.exec(t)!;
    assert.equal(Number(next), Number(last) + 1);
    assert.doesNotMatch(t, /output truncated/, "the registry cap did not have to cut");
    const lastLine = t.split("\n").at(-2)!;
    assert.match(lastLine, new RegExp(`^\\s+${last}\\trow ${last} x{40}$`));
  });

  it("reads a range deep in a large file", async () => {
    const t = text(await ws.run("read_file", { path: "big.txt", startLine: 40_000, endLine: 40_001 }));
    assert.match(t, /^ 40000\trow 40000 x{40}\n 40001\trow 40001 x{40}\n\[showing lines 40000-40001/);
  });
});
