#!/usr/bin/env bash
# Large-table run benchmark: the first sync of a table of 200 files in one
# process with its work directory sampled (peak local disk), and the same
# kind of backfill by one and by three floe serve replicas on one Redis.
# Rewrites the "Large tables" block of docs/benchmarks.md.
# Usage: scripts/bench-runs.sh [runbench flags, e.g. -files 400 -rows 100000]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-redis.sh
make build >/dev/null
mkdir -p .cache/bench
go build -o .cache/bench/runbench ./tools/bench/runs
exec .cache/bench/runbench -floe bin/floe -dir .cache/bench/runs -report docs/benchmarks.md "$@"
