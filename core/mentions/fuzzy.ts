/**
 * The @file picker's fuzzy match: the query's characters in order (case-insensitive) in
 * the path, scored so the expected file comes first — a match in the file name beats one
 * spread over folders, consecutive characters and word starts (after `/ . _ -`, or an
 * upper-case letter) score more, and shorter paths win ties. Linear in the path's length.
 */
export function fuzzyScore(path: string, query: string): number | undefined {
  if (!query) return 1 / (1 + path.length);
  const q = query.toLowerCase().replace(/\s+/g, "");
  const p = path.toLowerCase();
  const nameStart = path.lastIndexOf("/") + 1;
  // The match that starts as late as possible keeps as much of the query as it can in the file name.
  const exactName = p.slice(nameStart).indexOf(q);
  // Within the name: at its start best, then the fewer extra characters in the name (file1234 before file12341).
  if (exactName >= 0)
    return 1_000 + (exactName === 0 ? 500 : 0) - (path.length - nameStart - q.length) - path.length / 100;
  const contiguous = p.indexOf(q);
  if (contiguous >= 0) return 500 - contiguous / 10 - path.length / 100;
  let score = 0;
  let qi = 0;
  let last = -2;
  for (let i = 0; i < p.length && qi < q.length; i++) {
    if (p[i] !== q[qi]) continue;
    const prev = path[i - 1];
    const boundary =
      i === 0 ||
      prev === "/" ||
      prev === "." ||
      prev === "_" ||
      prev === "-" ||
      (path[i] !== p[i] && prev !== undefined && prev === prev.toLowerCase());
    score += 1 + (i === last + 1 ? 4 : 0) + (boundary ? 3 : 0) + (i >= nameStart ? 2 : 0);
    last = i;
    qi++;
  }
  if (qi < q.length) return undefined;
  return score - path.length / 100;
}

/** The best `limit` of `paths` for `query`, best first. */
export function fuzzyFilter(paths: readonly string[], query: string, limit: number): string[] {
  const scored: [string, number][] = [];
  for (const path of paths) {
    const s = fuzzyScore(path, query);
    if (s !== undefined) scored.push([path, s]);
  }
  scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return scored.slice(0, limit).map(([path]) => path);
}
