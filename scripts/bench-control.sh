#!/usr/bin/env bash
# Control-plane benchmark: two real `floe serve` replicas on one
# redis-server; 200 pauses and resumes through replica A, each timed until
# replica B's status shows it. Writes the "Control plane" block of
# docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-redis.sh
out=$(go test -tags integration -run '^$' -bench 'BenchmarkServe_ControlPropagation' -benchtime 1x ./cmd/floe/ 2>&1)
echo "$out"
row=$(echo "$out" | awk '/^BenchmarkServe_ControlPropagation/ {
	for (i = 3; i < NF; i += 2) m[$(i+1)] = $i
	printf "| %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", m["changes"], m["p50-ms"], m["p99-ms"], m["max-ms"], m["req-p50-ms"], m["req-p99-ms"] }')
[[ -n $row ]] || { echo "bench-control: no benchmark line" >&2; exit 1; }
block=$(printf '%s\n' "<!-- bench-control:begin -->" \
	"Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), $(go env GOVERSION), $(nproc) CPUs shared with other work." "" \
	"| changes | A answered → B shows it, p50 ms | p99 ms | max ms | request sent → B shows it, p50 ms | p99 ms |" \
	"|---:|---:|---:|---:|---:|---:|" "$row" "<!-- bench-control:end -->")
python3 - "$block" <<'PY'
import re, sys
p = "docs/benchmarks.md"
s = open(p).read()
block = sys.argv[1]
section = """## Control plane

`make bench-control` (scripts/bench-control.sh → `BenchmarkServe_ControlPropagation` in `cmd/floe`) starts a
`redis-server` and two `floe serve` processes on it, with a refresh interval of one hour so that only the announced
change can carry a table change from one replica to the other. It registers four tables, then pauses and resumes
them through replica A, 200 changes one after the other. Each change is timed from A's answer (and from the moment
the request was sent) until replica B's status shows the new revision; B is polled back to back, so a figure
includes up to one status round trip on loopback. A change is one Lua script on Redis that stores the record and
appends it to the change stream; B blocks on the stream (`XREAD`) and applies the change as it arrives.

"""
if "<!-- bench-control:begin -->" in s:
    s = re.sub(r"<!-- bench-control:begin -->.*?<!-- bench-control:end -->", lambda m: block, s, flags=re.S)
else:
    s = s.rstrip("\n") + "\n\n" + section + block + "\n"
open(p, "w").write(s)
PY
