/**
 * Last-activity groups of the Sessions tree: Today, Yesterday, Previous 7 days, then one
 * per month. A group's sessions are a contiguous run of the newest-first order, so the
 * groups are found by binary search over it: listing them costs O(groups · log n), not a
 * pass over every session.
 */
export interface DateRange {
  /** Stable key of the group ("today", "yesterday", "week", "2026-11"). */
  key: string;
  label: string;
  /** Indices into the newest-first rows: [start, end). */
  start: number;
  end: number;
}

const startOfDay = (d: Date, minusDays = 0) =>
  new Date(d.getFullYear(), d.getMonth(), d.getDate() - minusDays).getTime();

/** The group a time falls in, at `now` (local time). */
export function dateBucket(time: number, now: number): { key: string; label: string } {
  const today = new Date(now);
  if (time >= startOfDay(today)) return { key: "today", label: "Today" };
  if (time >= startOfDay(today, 1)) return { key: "yesterday", label: "Yesterday" };
  if (time >= startOfDay(today, 7)) return { key: "week", label: "Previous 7 days" };
  const t = new Date(time);
  return {
    key: `${t.getFullYear()}-${String(t.getMonth() + 1).padStart(2, "0")}`,
    label: t.toLocaleString(undefined, { month: "long", year: "numeric" }),
  };
}

/** Milliseconds from `now` to the next local midnight, when every group's bounds move (DST-proof: a calendar day, not 24 h). */
export function untilMidnight(now: number): number {
  const d = new Date(now);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime() - now;
}

/** The non-empty groups of `times` (newest first), each a range of indices. */
export function dateRanges(count: number, timeAt: (i: number) => number, now: number): DateRange[] {
  const today = new Date(now);
  const out: DateRange[] = [];
  let i = 0;
  const take = (key: string, label: string, from: number) => {
    const end = firstBefore(count, timeAt, i, from);
    if (end > i) out.push({ key, label, start: i, end });
    i = end;
  };
  take("today", "Today", startOfDay(today));
  take("yesterday", "Yesterday", startOfDay(today, 1));
  take("week", "Previous 7 days", startOfDay(today, 7));
  while (i < count) {
    const t = new Date(timeAt(i));
    const { key, label } = dateBucket(t.getTime(), now);
    take(key, label, new Date(t.getFullYear(), t.getMonth(), 1).getTime());
  }
  return out;
}

/** The first index at or after `from` whose time is older than `limit` (times are non-increasing). */
function firstBefore(count: number, timeAt: (i: number) => number, from: number, limit: number): number {
  let lo = from;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeAt(mid) >= limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
