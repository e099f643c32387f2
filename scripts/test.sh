#!/usr/bin/env bash
# make test: installs the test peers, then runs lint, the fast tests with
# the race detector, and the integration suites against real peers (Redis,
# Apache Pinot's own segment code, moto, PyIceberg, the Iceberg REST server,
# Spark).
# A missing peer fails the run; nothing is skipped.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$(date +%s)
bash scripts/setup-all.sh
echo "== peers ready in $(( $(date +%s) - start ))s"

bash scripts/lint.sh

echo "== go test -race -tags integration ./..."
# -p 2: the machine has two cores; integration suites start JVMs and servers.
mkdir -p .cache
# Browser tests save their screenshots here (a failing test logs its paths).
if [ -z "${TEST_ARTIFACTS_DIR:-}" ]; then
	rm -rf .cache/artifacts
	export TEST_ARTIFACTS_DIR="$PWD/.cache/artifacts"
fi
# The 1.1M-row segment test checks values in one goroutine: it runs in a
# second pass without the race detector, which would only triple its time.
big='^TestPinotReadsBigSegment$'
if ! go test -race -tags integration -p 2 -timeout 30m -count=1 -skip "$big" ./... 2>&1 | tee .cache/test.log; then
	echo "== screenshots of failed browser tests:"
	find "$TEST_ARTIFACTS_DIR" -name '*-failed.png' 2>/dev/null | sort
	exit 1
fi
# tools/deploy is a module of its own (go-containerregistry, Helm's SDK and
# the Kubernetes API types stay out of floe's go.mod): it builds the image
# and runs it from its unpacked layers against Redis and the demo lake, and
# renders, lints and checks the Helm chart.
echo "== go test -tags integration ./... in tools/deploy (image, Helm chart)"
deploy_start=$(date +%s)
(cd tools/deploy && go test -tags integration -timeout 20m -count=1 ./... 2>&1) | tee -a .cache/test.log
echo "== tools/deploy done in $(( $(date +%s) - deploy_start ))s"
echo "== go test -tags integration -run '$big' ./segments/"
go test -tags integration -timeout 20m -count=1 -run "$big" -v ./segments/ 2>&1 | tee -a .cache/test.log | grep -E '^(---|ok|FAIL|panic)|built '
echo "== done in $(( $(date +%s) - start ))s"
