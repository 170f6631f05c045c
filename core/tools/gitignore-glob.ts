import picomatch from "picomatch";

/**
 * .gitignore rules as the globs an editor search can exclude before it enumerates:
 * VS Code's findFiles takes one exclude glob and hands it to ripgrep, which then never
 * enters a directory the glob matches. The exact verdict stays with the `ignore` package
 * (gitignore.ts); a glob here only has to be safe: it matches nothing git would keep.
 */

const MAX_RULE_CHARS = 256;
const MAX_NAME_WILDCARDS = 8;

/** One line of a .gitignore, read as git reads it. */
export interface GitignoreRule {
  /** The line as written, for messages. */
  line: string;
  negated: boolean;
  /** Written with a trailing `/`: matches directories only. */
  dirOnly: boolean;
  /** A `/` before the end: matches from the file's own directory, else at any depth below it. */
  anchored: boolean;
  /** The pattern without `!`, the leading `/` and the trailing `/`. */
  body: string;
}

/** The rules of a .gitignore's text, in order (blank lines and comments dropped). */
export function parseGitignore(text: string): GitignoreRule[] {
  const rules: GitignoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw;
    // Trailing spaces are dropped unless escaped with a backslash.
    line = line.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    let negated = false;
    let body = line;
    if (body.startsWith("!")) {
      negated = true;
      body = body.slice(1);
    } else if (body.startsWith("\\!") || body.startsWith("\\#")) body = body.slice(1);
    const dirOnly = body.endsWith("/") && !body.endsWith("\\/");
    if (dirOnly) body = body.replace(/\/+$/, "");
    const anchored = body.includes("/");
    body = body.replace(/^\/+/, "");
    if (body === "") continue;
    rules.push({ line: raw, negated, dirOnly, anchored, body });
  }
  return rules;
}

/**
 * The glob, relative to the workspace root, of the paths a rule of the .gitignore in `base`
 * matches; undefined when VS Code's glob cannot say it exactly (escapes, braces and commas,
 * POSIX classes, `**` inside a name), so such a rule is left to the exact check.
 */
export function ruleGlob(rule: GitignoreRule, base: string): string | undefined {
  const body = rule.body;
  // Escapes, braces, commas, extglob parentheses, `!` outside brackets, POSIX classes.
  if (/[\\{},()]|(?<!\[)!/.test(body) || body.includes("[:")) return undefined;
  // A .gitignore can come with a cloned repository: a rule too long or too starry to compare cheaply is not pruned.
  if (body.length > MAX_RULE_CHARS) return undefined;
  const segments = body.split("/");
  for (const segment of segments) {
    if (segment.includes("**") && segment !== "**") return undefined;
    if ((segment.match(/[*?]/g)?.length ?? 0) > MAX_NAME_WILDCARDS) return undefined;
    if (!checkBrackets(segment)) return undefined;
  }
  const glob = segments.map((s) => s.replace(/\[\^/g, "[!")).join("/");
  const prefix = base === "" ? "" : `${base}/`;
  return rule.anchored ? `${prefix}${glob}` : `${prefix}**/${glob}`;
}

/** Each `[` closes on the same name with at least one character inside; none is left open. */
function checkBrackets(segment: string): boolean {
  for (let i = 0; i < segment.length; i++) {
    if (segment[i] === "]") return false;
    if (segment[i] !== "[") continue;
    let j = i + 1;
    if (segment[j] === "!" || segment[j] === "^") j++;
    if (segment[j] === "]") return false; // `[]...]`: git and VS Code read it differently
    const close = segment.indexOf("]", j);
    if (close < 0 || close === j) return false;
    i = close;
  }
  return true;
}

/** The rules of one ignore file and the workspace-relative directory they apply below. */
export interface IgnoreFile {
  /** Workspace-relative directory, "" for the root. */
  base: string;
  rules: readonly GitignoreRule[];
}

export interface PruneGlobs {
  /** Exclude globs safe to hand to the search (no braces or commas inside). */
  globs: string[];
  /** Positive rules kept out of `globs` (untranslatable, or a `!` rule may re-include what they match). */
  leftToCheck: { base: string; rule: GitignoreRule }[];
  /** The rules behind `globs`, in the same order. */
  pruned: { base: string; rule: GitignoreRule }[];
}

/**
 * The exclude globs of a set of ignore files, ordered from lowest precedence to highest
 * (`.git/info/exclude` first, then parents before the directories below them). A positive
 * rule is pruned only when no `!` rule of higher precedence (later in its file, or in a
 * deeper file) may match a path it matches; what a pruned directory holds is ignored
 * whatever a rule says about it, as in git, so a negation under it cannot matter.
 */
export function pruneGlobs(files: readonly IgnoreFile[]): PruneGlobs {
  const negations: { file: number; index: number; base: string; glob: string | undefined }[] = [];
  files.forEach((file, f) =>
    file.rules.forEach((rule, index) => {
      if (rule.negated) negations.push({ file: f, index, base: file.base, glob: ruleGlob(rule, file.base) });
    }),
  );
  const out: PruneGlobs = { globs: [], leftToCheck: [], pruned: [] };
  files.forEach((file, f) =>
    file.rules.forEach((rule, index) => {
      if (rule.negated) return;
      const glob = ruleGlob(rule, file.base);
      const overridden = (n: (typeof negations)[number]) => {
        const higher = n.file === f ? n.index > index : n.file > f && within(n.base, file.base);
        // An untranslatable negation may match anything below its directory.
        return higher && (n.glob === undefined || mayOverlap(n.glob, glob!));
      };
      if (glob === undefined || negations.some(overridden)) {
        out.leftToCheck.push({ base: file.base, rule });
        return;
      }
      // A directory-only rule must not hide a file of that name: exclude what it holds instead
      // (`/*`, not `/**`, which some glob engines let match the directory itself).
      // `abc/**` likewise holds everything below abc, not abc itself.
      out.globs.push(rule.dirOnly ? `${glob}/*` : glob.endsWith("/**") ? `${glob.slice(0, -3)}/*` : glob);
      out.pruned.push({ base: file.base, rule });
    }),
  );
  return out;
}

/** Whether workspace-relative `dir` is `parent` or below it. */
function within(dir: string, parent: string): boolean {
  return parent === "" || dir === parent || dir.startsWith(`${parent}/`);
}

const WILD = /[*?[]/;

/**
 * Whether some path may match both globs (false only when none can). Globs are `/`-separated
 * names where `**` is any run of names; two names with wildcards are compared by their
 * literal ends only, so the answer errs towards true.
 */
export function mayOverlap(a: string, b: string): boolean {
  const x = a.split("/");
  const y = b.split("/");
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (y.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let r: boolean;
    if (i === x.length && j === y.length) r = true;
    else if (x[i] === "**") r = go(i + 1, j) || (j < y.length && go(i, j + 1));
    else if (y[j] === "**") r = go(i, j + 1) || (i < x.length && go(i + 1, j));
    else if (i < x.length && j < y.length) r = namesOverlap(x[i]!, y[j]!) && go(i + 1, j + 1);
    else r = false;
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

function namesOverlap(a: string, b: string): boolean {
  const wildA = WILD.test(a);
  const wildB = WILD.test(b);
  if (!wildA && !wildB) return a === b;
  if (!wildA) return picomatch.isMatch(a, b, { dot: true });
  if (!wildB) return picomatch.isMatch(b, a, { dot: true });
  const head = (s: string) => s.slice(0, s.search(WILD));
  const tail = (s: string) => {
    let k = s.length;
    while (k > 0 && !/[*?\]]/.test(s[k - 1]!)) k--;
    return s.slice(k);
  };
  const [ha, hb, ta, tb] = [head(a), head(b), tail(a), tail(b)];
  return (ha.startsWith(hb) || hb.startsWith(ha)) && (ta.endsWith(tb) || tb.endsWith(ta));
}

/**
 * The literal path a pruned rule names at its own level (`node_modules/` of the root's
 * `node_modules/`, `packages/a/dist` of `/dist` in packages/a), for telling what was
 * skipped; undefined when the rule has wildcards.
 */
export function ruleLiteralPath(rule: GitignoreRule, base: string): string | undefined {
  if (WILD.test(rule.body) || rule.body.split("/").includes("**")) return undefined;
  return base === "" ? rule.body : `${base}/${rule.body}`;
}
