import { createHash } from "node:crypto";

/**
 * Session and agent ids are opaque strings; on disk they become directory names that
 * are safe on every filesystem we may meet (POSIX, NTFS, case-insensitive APFS):
 *
 * - `a-z 0-9 - _` stay as they are; every other UTF-8 byte becomes `~xx` (lowercase
 *   hex). Upper-case letters are escaped too, so `Ab` and `aB` never collide on a
 *   case-insensitive disk, and no name holds `.`, `/`, `\`, a space or a control char
 *   (so no `..`, no trailing dots or spaces).
 * - Windows device names (CON, NUL, COM1…) are reserved in any case; their first
 *   letter is escaped.
 * - The empty id is `~`.
 * - Names longer than MAX_NAME are shortened to a prefix + `~~` + a SHA-256 digest;
 *   those cannot be decoded from the name alone, so the store records the full id in
 *   the directory (see layout `ID_FILE`).
 */
const SAFE = /^[a-z0-9_-]$/;
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
export const MAX_NAME = 160;

const PLAIN = /^[a-z0-9_-]+$/;

export function encodeId(id: string): string {
  if (id.length === 0) return "~";
  // Fast path for the common `session-<uuid>`: already a safe name (lists encode one per session).
  if (id.length <= MAX_NAME && PLAIN.test(id) && !RESERVED.test(id)) return id;
  let out = "";
  for (const byte of Buffer.from(id, "utf8")) {
    const ch = String.fromCharCode(byte);
    out += SAFE.test(ch) ? ch : `~${byte.toString(16).padStart(2, "0")}`;
  }
  if (RESERVED.test(out)) out = `~${out.charCodeAt(0).toString(16)}${out.slice(1)}`;
  if (out.length <= MAX_NAME) return out;
  const digest = createHash("sha256").update(id, "utf8").digest("hex").slice(0, 40);
  return `${out.slice(0, MAX_NAME - 42).replace(/~[0-9a-f]?$/, "")}~~${digest}`;
}

/** The id a directory name stands for; undefined for hashed (over-long) or foreign names. */
export function decodeId(name: string): string | undefined {
  if (name === "~") return "";
  if (name.includes("~~") || !/^(?:[a-z0-9_-]|~[0-9a-f]{2})+$/.test(name)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < name.length; i++) {
    if (name[i] === "~") {
      bytes.push(parseInt(name.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(name.charCodeAt(i));
  }
  const id = Buffer.from(bytes).toString("utf8");
  // Only the canonical encoding of an id counts (rejects hand-made or stray names).
  return encodeId(id) === name ? id : undefined;
}

export function isHashedName(name: string): boolean {
  return name.includes("~~");
}
