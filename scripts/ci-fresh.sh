#!/usr/bin/env bash
# Runs `.ci/run` on fresh clones of HEAD, one after another, quiet or beside the two half-duty busy
# loops (scripts/busy-loops.ts), and prints each run's wall time and counts (docs/testing.md).
#   scripts/ci-fresh.sh [--busy] [runs]     logs in .data/ci-fresh/
set -uo pipefail
cd "$(dirname "$0")/.."
busy=0
if [ "${1:-}" = "--busy" ]; then busy=1; shift; fi
runs="${1:-1}"
repo="$(pwd)"
commit="$(git rev-parse --short HEAD)"
logs="$repo/.data/ci-fresh"
mkdir -p "$logs"
for run in $(seq 1 "$runs"); do
  name="$(date +%H%M%S)-$commit-$([ $busy = 1 ] && echo busy || echo quiet)-$run"
  clone="$(mktemp -d /tmp/ci-fresh.XXXXXX)"
  git clone -q "$repo" "$clone"
  loops_pid=""
  if [ $busy = 1 ]; then
    # Its own process group, so that stopping it stops tsx and both loops.
    setsid bash -c "cd '$repo' && exec npx tsx scripts/busy-loops.ts" >/dev/null 2>&1 &
    loops_pid=$!
  fi
  started=$SECONDS
  (cd "$clone" && bash .ci/run) >"$logs/$name.log" 2>&1
  status=$?
  wall=$((SECONDS - started))
  [ -n "$loops_pid" ] && kill -- "-$loops_pid" 2>/dev/null
  vitest="$(grep -E '^ +Tests ' "$logs/$name.log" | tail -1 | sed 's/ \+/ /g')"
  e2e="$(grep -E '^ +[0-9]+ (passed|failed|flaky)' "$logs/$name.log" | tr -s ' ' | tr '\n' ',')"
  echo "$name: exit $status, ${wall} s;${vitest}; e2e:${e2e}" | tee -a "$logs/summary.txt"
  # vitest's per-file report, for scripts/test-durations.ts.
  cp "$clone/.data/vitest-report.json" "$logs/$name.vitest.json" 2>/dev/null
  rm -rf "$clone"
done
