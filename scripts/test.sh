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
mkdir -p .cache

# The integration suites mostly wait on the processes they start (floe
# replicas, Redis, JVMs), which leaves a core idle much of the time. Lint and
# the 1.1M-row segment test are CPU work with no deadline of their own: they
# run beside the suites at the lowest CPU priority (nice 19), in that idle
# time, and the suites' processes always come first. Their output is printed
# when the suites are done.
# The 1.1M-row segment test checks values in one goroutine: it runs without
# the race detector, which would only triple its time.
big='^TestPinotReadsBigSegment$'
rm -f .cache/lint.status .cache/test-big.status
(
	s=$(date +%s)
	status=0
	nice -n 19 bash scripts/lint.sh >.cache/lint.log 2>&1 || status=$?
	echo "== lint done in $(( $(date +%s) - s ))s (status $status)" >>.cache/lint.log
	echo "$status" >.cache/lint.status
	s=$(date +%s)
	status=0
	nice -n 19 go test -tags integration -timeout 20m -count=1 -run "$big" -v ./segments/ >.cache/test-big.log 2>&1 || status=$?
	echo "== go test -run '$big' ./segments/ done in $(( $(date +%s) - s ))s (status $status)" >>.cache/test-big.log
	echo "$status" >.cache/test-big.status
) &
background=$!

# finish_background waits for lint and the 1.1M-row segment test, prints
# what they said, and fails when either failed.
finish_background() {
	wait "$background" || true
	echo "== lint (run beside the tests)"
	cat .cache/lint.log
	echo "== go test -tags integration -run '$big' ./segments/ (run beside the tests)"
	grep -E '^(---|ok|FAIL|panic|==)|built ' .cache/test-big.log || true
	cat .cache/test-big.log >>.cache/test.log
	local ok=0
	if [ "$(cat .cache/lint.status 2>/dev/null)" != 0 ]; then
		echo "== lint FAILED" >&2
		ok=1
	fi
	if [ "$(cat .cache/test-big.status 2>/dev/null)" != 0 ]; then
		echo "== the 1.1M-row segment test FAILED:" >&2
		tail -n 100 .cache/test-big.log >&2
		ok=1
	fi
	return "$ok"
}

echo "== go test -race -tags integration ./..."
# -p 2: the machine has two cores; integration suites start JVMs and servers.
# Browser tests save their screenshots here (a failing test logs its paths).
if [ -z "${TEST_ARTIFACTS_DIR:-}" ]; then
	rm -rf .cache/artifacts
	export TEST_ARTIFACTS_DIR="$PWD/.cache/artifacts"
fi
# go test starts the packages' tests in the order it is given them, two at a
# time: the slowest go first (longest first), so that no long package starts
# last and runs alone while the other slot idles. ./... adds the rest.
slow=(./internal/e2e/ ./cmd/floe/ ./internal/matrix/ ./watcher/plan/ ./catalog/ ./segments/ ./watcher/ ./schema/
	./internal/swapload/ ./segments/read/ ./pinot/ ./checkpoint/)
test_start=$(date +%s)
if ! go test -race -tags integration -p 2 -timeout 30m -count=1 -skip "$big" "${slow[@]}" ./... 2>&1 | tee .cache/test.log; then
	echo "== screenshots of failed browser tests:"
	find "$TEST_ARTIFACTS_DIR" -name '*-failed.png' 2>/dev/null | sort || true
	finish_background || true
	exit 1
fi
echo "== go test -race done in $(( $(date +%s) - test_start ))s"

# tools/deploy is a module of its own (go-containerregistry, Helm's SDK and
# the Kubernetes API types stay out of floe's go.mod): it builds the image
# and runs it from its unpacked layers against Redis and the demo lake, and
# renders, lints and checks the Helm chart.
echo "== go test -tags integration ./... in tools/deploy (image, Helm chart)"
deploy_start=$(date +%s)
deploy_status=0
(cd tools/deploy && go test -tags integration -timeout 20m -count=1 ./... 2>&1) | tee -a .cache/test.log || deploy_status=$?
echo "== tools/deploy done in $(( $(date +%s) - deploy_start ))s"
background_status=0
finish_background || background_status=$?
if [ "$deploy_status" -ne 0 ] || [ "$background_status" -ne 0 ]; then
	exit 1
fi
echo "== done in $(( $(date +%s) - start ))s"
