#!/usr/bin/env bash
# Installs every peer floe's tests run against. Each setup script is
# idempotent and returns at once when its peer is already in place.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for s in scripts/setup-redis.sh scripts/setup-python.sh scripts/setup-postgres.sh scripts/setup-pinot.sh scripts/setup-pinot-cluster.sh scripts/setup-iceberg-rest.sh scripts/setup-spark.sh scripts/setup-chromium.sh; do
	if [[ -f $s ]]; then
		echo "== $s"
		bash "$s"
	fi
done
