#!/usr/bin/env bash
# Runs test files N times each beside K busy CPU loops, the "20 of 20 beside a busy CPU"
# check the issues ask for. Usage:
#   bash scripts/repeat-test.sh [-n runs] [-k busy-loops] test/e2e/x.test.ts [more files]
# Prints one line per run and a summary per file; a failed run's TAP output, and for a UI
# test its output folder (screenshots, logs), are kept in test/.tmp/repeat/<file>-<run>/.
# Build first (`npm run build`): UI tests package dist/ as they find it. Exit 1 if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=20 busy=1
while getopts "n:k:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    k) busy=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-n runs] [-k busy-loops] test-file..." >&2; exit 2; }

pids=()
stop_busy() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap stop_busy EXIT
for _ in $(seq 1 "$busy"); do
  (while :; do :; done) &
  pids+=($!)
done

status=0
for file in "$@"; do
  name=$(basename "$file" .test.ts)
  passed=0
  for i in $(seq 1 "$runs"); do
    out=$(mktemp)
    start=$(date +%s)
    node --import tsx --require ./test/support/vscode-fake/register.cjs --test "$file" >"$out" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    load=$(cut -d' ' -f1 /proc/loadavg)
    summary=$(grep -E '^# (pass|fail|skipped) ' "$out" | tr '\n' ' ')
    if [ $rc -eq 0 ]; then
      passed=$((passed + 1))
      echo "$name run $i/$runs: pass in ${secs}s, load $load: $summary"
    else
      keep="test/.tmp/repeat/$name-$i"
      rm -rf "$keep" && mkdir -p "$keep" && cp "$out" "$keep/tap.txt"
      [ -d "test/.tmp/e2e/$name" ] && cp -r "test/.tmp/e2e/$name" "$keep/e2e"
      echo "$name run $i/$runs: FAIL in ${secs}s, load $load: $summary(kept in $keep)"
      grep -E '^\s*not ok ' "$out" | head -5 | sed 's/^/    /'
      status=1
    fi
    rm -f "$out"
  done
  echo "$name: $passed of $runs passed beside $busy busy loop(s)"
done
exit $status
