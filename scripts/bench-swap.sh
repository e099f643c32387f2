#!/usr/bin/env bash
# Atomic swaps under load: internal/swapload's test pushes an overwrite, a
# compaction and a merge-on-read delete to a real Pinot 0.11 cluster while
# two workers count the table on the broker back to back. Writes the
# "Atomic swaps under load" block of docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-pinot-cluster.sh >/dev/null
out=$(go test -tags integration -count=1 -v -run '^TestSwap_AtomicUnderLoad$' ./internal/swapload/ 2>&1) || {
	echo "$out"
	exit 1
}
echo "$out" | grep -E 'row: |^(--- |ok|FAIL)'
rows=$(echo "$out" | sed -n 's/.*row: //p')
[[ -n $rows ]] || { echo "bench-swap: no result rows" >&2; exit 1; }
block=$(printf '%s\n' "<!-- bench-swap:begin -->" \
	"Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), $(go env GOVERSION), $(nproc) CPUs shared with other work; Pinot $(sed -n 's/^const PinotVersion = "\(.*\)"/\1/p' internal/testpeer/pinot.go) cluster on loopback." "" \
	"| operation | rows before → after | segments before → after | queries | while the run was in flight | counts seen (times) | run s |" \
	"|---|---|---|---:|---:|---|---:|" "$rows" "<!-- bench-swap:end -->")
python3 - "$block" <<'PY'
import re, sys
p = "docs/benchmarks.md"
s = open(p).read()
block = sys.argv[1]
section = """## Atomic swaps under load

`make bench-swap` (scripts/bench-swap.sh → `TestSwap_AtomicUnderLoad` in `internal/swapload`, which `make test` runs
too) syncs an iceberg-go table (format v2, merge-on-read deletes) into a Pinot 0.11 cluster with a real watcher; data
files of 5,000 rows become segments of 2,500 rows, so every replacement uploads several segments between its start
and its end. Then an overwrite, a compaction and a merge-on-read delete are each committed to Iceberg and synced
while two workers run `SELECT count(*)` on the broker back to back, from before the run starts until the new count
has shown for 150 more queries (at least 400 in all). The test fails if any answer is neither the old snapshot's
count nor the new one's, or if a query fails. The compaction is remapped (watcher/plan P11): its run must build and
retire no segment and leave the served segments as they were. Run against a swap that uploads the new segments
and then deletes the old ones (not atomic), the same test saw four other counts during the overwrite and six during
the delete.

"""
if "<!-- bench-swap:begin -->" in s:
    s = re.sub(r"<!-- bench-swap:begin -->.*?<!-- bench-swap:end -->", lambda m: block, s, flags=re.S)
else:
    s = s.rstrip("\n") + "\n\n" + section + block + "\n"
open(p, "w").write(s)
PY
