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

lint_start=$(date +%s)
bash scripts/lint.sh
echo "== lint done in $(( $(date +%s) - lint_start ))s"

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
# go test starts the packages' tests in the order it is given them, two at a
# time: the slowest go first (longest first), so that no long package starts
# last and runs alone while the other slot idles. ./... adds the rest.
slow=(./internal/e2e/ ./cmd/floe/ ./internal/matrix/ ./watcher/plan/ ./catalog/ ./segments/ ./watcher/ ./schema/
	./internal/swapload/ ./segments/read/ ./pinot/ ./checkpoint/)
test_start=$(date +%s)
if ! go test -race -tags integration -p 2 -timeout 30m -count=1 -skip "$big" "${slow[@]}" ./... 2>&1 | tee .cache/test.log; then
	echo "== screenshots of failed browser tests:"
	find "$TEST_ARTIFACTS_DIR" -name '*-failed.png' 2>/dev/null | sort
	exit 1
fi
echo "== go test -race done in $(( $(date +%s) - test_start ))s"
# The 1.1M-row segment (no race detector) and tools/deploy run side by side:
# neither fills both cores for long.
echo "== go test -tags integration -run '$big' ./segments/ (in the background)"
go test -tags integration -timeout 20m -count=1 -run "$big" -v ./segments/ >.cache/test-big.log 2>&1 &
big_pid=$!
# tools/deploy is a module of its own (go-containerregistry, Helm's SDK and
# the Kubernetes API types stay out of floe's go.mod): it builds the image
# and runs it from its unpacked layers against Redis and the demo lake, and
# renders, lints and checks the Helm chart.
echo "== go test -tags integration ./... in tools/deploy (image, Helm chart)"
deploy_start=$(date +%s)
deploy_status=0
(cd tools/deploy && go test -tags integration -timeout 20m -count=1 ./... 2>&1) | tee -a .cache/test.log || deploy_status=$?
echo "== tools/deploy done in $(( $(date +%s) - deploy_start ))s"
big_status=0
wait "$big_pid" || big_status=$?
echo "== go test -tags integration -run '$big' ./segments/ done"
cat .cache/test-big.log >>.cache/test.log
grep -E '^(---|ok|FAIL|panic)|built ' .cache/test-big.log || true
if [ "$big_status" -ne 0 ]; then
	tail -n 100 .cache/test-big.log
fi
if [ "$deploy_status" -ne 0 ] || [ "$big_status" -ne 0 ]; then
	exit 1
fi
echo "== done in $(( $(date +%s) - start ))s"
