#!/usr/bin/env bash
# Segment conversion benchmark: floe convert vs Apache Pinot 1.5.1's own
# segment creation vs floe's Parquet decoding alone, on a generated Parquet
# file of 5M rows (made once under .cache/bench/). Prints throughput, peak RSS
# and ratios, and rewrites the generated block of docs/benchmarks.md.
# Usage: scripts/bench-segments.sh [segbench run flags, e.g. -runs 3 -rows 1000000]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/setup-pinot.sh >/dev/null
mkdir -p .cache/bench
# Always build from the working tree (cheap with the build cache), so the
# numbers never come from a stale binary.
CGO_ENABLED=0 go build -trimpath -o .cache/bench/floe ./cmd/floe
go build -o .cache/bench/segbench ./tools/bench/segments
exec .cache/bench/segbench run -dir .cache/bench -floe .cache/bench/floe -report docs/benchmarks.md "$@"
