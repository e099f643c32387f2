#!/usr/bin/env bash
# Merge benchmark: a writer adds one small data file per snapshot and a
# watcher syncs after each, with watcher.mergeSmallUnits off and on; the
# segments served, rows rebuilt and CPU time side by side. Rewrites the
# generated block of docs/benchmarks.md.
# Usage: scripts/bench-merge.sh [mergebench flags, e.g. -runs 400 -rows 5000]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .cache/bench
go build -o .cache/bench/mergebench ./tools/bench/merge
exec .cache/bench/mergebench -dir .cache/bench/merge -report docs/benchmarks.md "$@"
