#!/usr/bin/env bash
# Table overview API benchmark: 1,000 tables on a real redis-server, the
# paginated listing, a filtered and sorted page, the summary, and the
# per-table read path the listing replaced. Rewrites the "Table overview
# API" block of docs/benchmarks.md.
# Usage: scripts/bench-tables.sh [tablebench flags, e.g. -tables 2000 -requests 500]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-redis.sh
mkdir -p .cache/bench
go build -o .cache/bench/tablebench ./tools/bench/tables
exec .cache/bench/tablebench -dir .cache/bench/tables -report docs/benchmarks.md "$@"
