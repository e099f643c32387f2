#!/usr/bin/env bash
# Creates the repo venv (.venv/) and installs the Python test peers pinned in
# tools/python/requirements.txt: moto in server mode (S3, S3 Tables, Glue, STS,
# IAM, CloudFormation), PyIceberg (fixture tables), and cfn-lint and parliament
# (the linters floe's generated CloudFormation templates and IAM policies pass). Idempotent: a stamp holding the hash of the
# requirements file makes a second run return at once.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
req="$root/tools/python/requirements.txt"
venv="$root/.venv"
stamp="$venv/.floe-requirements.sha256"

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	exit 0
fi

if ! command -v python3 >/dev/null 2>&1; then
	apt-get update
	apt-get install -y python3 python3-venv
fi
if [[ ! -x "$venv/bin/python" ]]; then
	if ! python3 -m venv "$venv"; then
		apt-get update
		apt-get install -y python3-venv
		python3 -m venv "$venv"
	fi
fi

"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r "$req"
"$venv/bin/moto_server" --help >/dev/null
"$venv/bin/python" -c 'import pyiceberg, pyarrow, boto3, duckdb'
"$venv/bin/cfn-lint" --version >/dev/null
"$venv/bin/parliament" --help >/dev/null
echo "$want" >"$stamp"
