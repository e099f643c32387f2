#!/usr/bin/env bash
# Planner benchmark: the cost of planning a one-file sync on tables of 10,
# 1,000, 10,000 and 100,000 data files (iceberg-go tables on a sqlite SQL
# catalog, built under .cache/bench/plan), incremental fold vs full-state
# diff vs iceberg-go's own scan planning, and the one-file sync as a whole
# `floe sync` process (cold) and as a warm run; then each table is compacted
# into a hundredth of its files and the remap that follows is measured the
# same two ways (-compact-only: only that block). Rewrites the generated
# blocks of docs/benchmarks.md. Needs ~2 GiB of disk and ~15 minutes on 2 CPUs.
# -manifest-per-file (make bench-plan-manifests): tables written one manifest per
# data file instead, only the process figures, into their own block (~10 minutes).
# Usage: scripts/bench-plan.sh [planbench flags, e.g. -runs 25 -files 10,100000]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .cache/bench
go build -o .cache/bench/planbench ./tools/bench/plan
go build -o .cache/bench/floe ./cmd/floe
exec .cache/bench/planbench -dir .cache/bench/plan -report docs/benchmarks.md -files 10,1000,10000,100000 -per-commit 1000 \
	-floe .cache/bench/floe "$@"
