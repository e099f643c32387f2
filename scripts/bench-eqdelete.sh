#!/usr/bin/env bash
# Equality-delete benchmark: a CDC writer's commits (one appended file and
# an equality delete of existing keys each) on a table of disjoint id
# ranges per file, whole runs with key bounds compared vs the rule floe
# had before (every older file rebuilt). Rewrites the generated block of
# docs/benchmarks.md. -grow 1000,10000 -rows 200 -sink memory measures the
# key-bounds contender on a table of each size instead, commits alternating
# (its own block). -accumulate 10 measures CPU per commit step by step as
# equality delete files accumulate, the builder's delete cache against
# iceberg-go's scan reading them per data file (its own block).
# Usage: scripts/bench-eqdelete.sh [eqbench flags, e.g. -files 1000 -rows 2000 -commits 3]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p .cache/bench
go build -o .cache/bench/eqbench ./tools/bench/eqdelete
exec .cache/bench/eqbench -dir .cache/bench/eqdelete -report docs/benchmarks.md "$@"
