import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { compress, decompress } from "@mongodb-js/zstd";
import { Sessions, sessionPaths } from "../../core/storage";
import { decodeSegment, parseSegmentName } from "../../core/storage/segment-codec";
import { assistant, tempRoot } from "../support/storage/helpers";

async function compacted(t: { after(fn: () => void): void }) {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "s" });
  for (let i = 0; i < 10; i++) assistant(s, `wörld ${i}`);
  await a.flush(s);
  await a.closePrefix(s, 6, "sum");
  await a.close();
  const p = sessionPaths(root, "default", "s");
  const file = readdirSync(p.segments)[0]!;
  return { root, seg: join(p.segments, file), name: parseSegmentName(file)! };
}

test("segments carry a checksum: a changed byte that still decodes to valid events is reported, never accepted", async (t) => {
  const { root, seg, name } = await compacted(t);
  const plain = await decompress(readFileSync(seg));
  assert.match(plain.toString("utf8"), /"checksum":"sha256-[0-9a-f]{64}"/);
  // "wörld" → "xörld": still valid JSON and valid events, one frame.
  const changed = Buffer.from(plain.toString("utf8").replace("wörld 2", "xörld 2"), "utf8");
  writeFileSync(seg, await compress(changed, 3));
  await assert.rejects(decodeSegment(readFileSync(seg), name), /checksum mismatch/);
  const b = new Sessions({ root });
  const { report } = await b.open({ sessionId: "s" });
  assert.match(report.readOnly ?? "", /segment 000000000001-000000000006\.jsonl\.zst: checksum mismatch/);
  await assert.rejects(b.messages({ sessionId: "s" }, { beforeSequence: 7 }), /checksum mismatch/);
  await assert.rejects(b.fork({ sessionId: "s" }, { atSeq: 3 }), /checksum mismatch|cannot fork damaged/);
  await b.close();
});

test("segments: a footer without a checksum (written before checksums) still decodes", async (t) => {
  const { seg, name } = await compacted(t);
  const text = (await decompress(readFileSync(seg))).toString("utf8").replace(/,"checksum":"sha256-[0-9a-f]{64}"/, "");
  const decoded = await decodeSegment(await compress(Buffer.from(text, "utf8"), 3), name);
  assert.equal(decoded.events.length, 6);
  assert.equal(decoded.footer.checksum, undefined);
});
