#!/usr/bin/env bash
# Checkpoint store benchmark: one checkpoint commit of a 10,000-file map on
# the memory, Bolt and real Redis stores, side by side in one run. Writes
# the "Checkpoint store" block of docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-redis.sh
out=$(go test -tags integration -run '^$' -bench 'BenchmarkStore_CommitCheckpoint' -benchmem -benchtime 20x ./checkpoint/ 2>&1)
echo "$out"
rows=$(echo "$out" | awk '/^BenchmarkStore_CommitCheckpoint/ {
	name=$1; sub(/^BenchmarkStore_CommitCheckpoint_?/, "", name); sub(/-[0-9]+$/, "", name); sub(/^\//, "", name)
	printf "| %s | %.1f | %.1f | %d |\n", name, $3/1e6, $5/1e6, $7 }')
[[ -n $rows ]] || { echo "bench-store: no benchmark lines" >&2; exit 1; }
block=$(printf '%s\n' "<!-- bench-store:begin -->" \
	"Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), $(go env GOVERSION), $(nproc) CPUs shared with other work." "" \
	"| store | ms per commit | MB allocated | allocations |" "|---|---:|---:|---:|" "$rows" "<!-- bench-store:end -->")
python3 - "$block" <<'PY'
import re, sys
p = "docs/benchmarks.md"
s = open(p).read()
block = sys.argv[1]
section = "## Checkpoint store\n\n`scripts/bench-store.sh` commits a checkpoint holding 10,000 files, 20 times per store, in one run: the\nin-memory store (tests), Bolt (the embedded store, an fsync per commit) and Redis (a real `redis-server` on\nloopback; the file map goes to a staging hash, then one Lua script checks the lease token and swaps it in).\n\n"
if "<!-- bench-store:begin -->" in s:
    s = re.sub(r"<!-- bench-store:begin -->.*?<!-- bench-store:end -->", lambda m: block, s, flags=re.S)
else:
    s = s.rstrip("\n") + "\n\n" + section + block + "\n"
open(p, "w").write(s)
PY
