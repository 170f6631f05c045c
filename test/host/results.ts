// The line protocol between the in-host runner (test/host/index.ts) and its Node-side
// driver (test/e2e/host-tests.test.ts): one JSON object per line, appended as tests end.
export type HostTestRecord =
  | { type: "start"; pid: number }
  | { type: "test"; title: string; ok: boolean; ms: number; error?: string; skipped?: boolean }
  | { type: "end"; failures: number };

export function parseHostResults(text: string): HostTestRecord[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as HostTestRecord);
}
