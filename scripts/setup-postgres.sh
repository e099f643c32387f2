#!/usr/bin/env bash
# Installs PostgreSQL server binaries (Debian's postgresql package) for the
# SQL-catalog-on-Postgres integration test; the test starts its own
# throw-away cluster on a loopback port (internal/testpeer/postgres.go).
# Idempotent: returns at once when initdb and postgres are present.
set -euo pipefail

find_bin() {
	local dir
	for dir in /usr/lib/postgresql/*/bin; do
		if [[ -x "$dir/initdb" && -x "$dir/postgres" ]]; then
			echo "$dir"
			return 0
		fi
	done
	return 1
}

if find_bin >/dev/null; then
	exit 0
fi
apt-get update
apt-get install -y postgresql
find_bin >/dev/null
