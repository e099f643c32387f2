#!/usr/bin/env bash
# Freshness benchmark: commit → queryable with one `floe serve` (Redis
# store, a Pinot 0.11 cluster as the sink) while a writer appends 100,000
# rows every 20 seconds, 10 times (about 4 minutes), in two modes: polling
# on a 5-second schedule, and notifications (each commit announced through
# the webhook) with the default 5-minute schedule. Writes the "Freshness"
# block of docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-redis.sh >/dev/null
bash scripts/setup-pinot-cluster.sh >/dev/null
out=$(go test -tags integration -run '^$' -bench '^BenchmarkServe_Freshness(Notify)?$' -benchtime 1x -timeout 30m -v ./cmd/floe/ 2>&1) || {
	echo "$out"
	exit 1
}
echo "$out" | grep -E 'commit: |^BenchmarkServe_Freshness|^(ok|FAIL)'
rows=$(echo "$out" | sed -n 's/.*commit: //p')
summary=$(echo "$out" | awk '/^BenchmarkServe_Freshness.* commits/ {
	mode = ($1 ~ /Notify/) ? "notification (webhook), default 5-min schedule" : "polling, 5-s schedule"
	for (i = 3; i < NF; i += 2) m[$(i+1)] = $i
	printf "| %s | %d | %.1f | %.1f | %.2f | %.2f | %d |\n", mode, m["commits"], m["fresh-p50-s"], m["fresh-p95-s"], m["run-p50-s"], m["run-p95-s"], m["queries"] }')
[[ -n $rows && -n $summary ]] || { echo "bench-freshness: no result lines" >&2; exit 1; }
block=$(printf '%s\n' "<!-- bench-freshness:begin -->" \
	"Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), $(go env GOVERSION), $(nproc) CPUs shared with other work; Pinot $(sed -n 's/^const PinotVersion = "\(.*\)"/\1/p' internal/testpeer/pinot.go) cluster and redis-server on loopback." "" \
	"| mode | commits | commit → queryable p50 s | p95 s | run p50 s | run p95 s | broker queries |" \
	"|---|---:|---:|---:|---:|---:|---:|" "$summary" "" \
	"Per commit (seconds): from the snapshot's timestamp to the first broker answer counting its rows, split into the wait for the run, the run, and Pinot making the segment visible; the run split into its phases." "" \
	"| mode | commit | run's trigger | commit → queryable | wait for the run | run | visible after the run | prepare | plan | build | push | commit |" \
	"|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" "$rows" "<!-- bench-freshness:end -->")
python3 - "$block" <<'PY'
import re, sys
p = "docs/benchmarks.md"
s = open(p).read()
block = sys.argv[1]
section = """## Freshness

`make bench-freshness` (scripts/bench-freshness.sh → `BenchmarkServe_Freshness` in `cmd/floe`) starts a
`redis-server`, a Pinot 0.11 cluster and one `floe serve` (Redis store, the cluster's controller as the sink, debug
logs) and registers an iceberg-go table (SQL catalog on sqlite) with the schedule `0/5 * * * * ?` (polling mode),
or with floe's default 5-minute schedule while the writer announces each commit through the webhook
(`POST /api/v1/tables/{name}/notify`, notification mode: the run waits for the 500 ms debounce, not the schedule). A writer then
commits an append of 100,000 rows every 20 seconds, 10 times; each commit is moved by a random part (seeded) of the
5-second schedule period, so the commits sample every phase of the schedule instead of one. A prober asks the
cluster's broker `SELECT count(*)` back to back. Each commit is timed from its snapshot's `timestamp-ms` to the
first broker answer that counts its rows, and split using the run that synced it (`/api/v1/tables/{name}/runs`):
the wait for the run (the schedule, then the run's start), the run (start to end), and the time Pinot takes to
route the new segment after floe's run ended. The run is split by floe's debug `run phase` log lines: prepare (lease,
table record, Iceberg metadata, checkpoint, schema check), plan, build (one segment of 100,000 rows), push (the
segment's upload to the controller), commit (the checkpoint in Redis, the run record).

"""
if "<!-- bench-freshness:begin -->" in s:
    s = re.sub(r"<!-- bench-freshness:begin -->.*?<!-- bench-freshness:end -->", lambda m: block, s, flags=re.S)
else:
    s = s.rstrip("\n") + "\n\n" + section + block + "\n"
open(p, "w").write(s)
PY
