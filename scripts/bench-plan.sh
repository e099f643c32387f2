#!/usr/bin/env bash
# Planner benchmark: the cost of planning a one-file sync on tables of 10,
# 1,000 and 10,000 data files (iceberg-go tables on a sqlite SQL catalog,
# built under .cache/bench/plan), incremental fold vs full-state diff vs
# iceberg-go's own scan planning. Rewrites the generated block of
# docs/benchmarks.md.
# Usage: scripts/bench-plan.sh [planbench flags, e.g. -runs 25 -files 10,100000]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .cache/bench
go build -o .cache/bench/planbench ./tools/bench/plan
exec .cache/bench/planbench -dir .cache/bench/plan -report docs/benchmarks.md "$@"
