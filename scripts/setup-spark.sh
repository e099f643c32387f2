#!/usr/bin/env bash
# Installs floe's Spark test peer: PySpark (pinned in tools/spark/requirements.txt)
# into the repo venv (.venv/, made by scripts/setup-python.sh) and Apache
# Iceberg's Spark runtime jar from Maven Central into tools/spark/target/lib
# (see tools/spark/pom.xml). Tests drive it through tools/python/spark_lake.py.
# Idempotent: a stamp holding the hash of the requirements file makes a second
# run return at once, and the jar is fetched again only when the pom changes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
req="$root/tools/spark/requirements.txt"
venv="$root/.venv"
stamp="$venv/.floe-spark.sha256"

source "$root/scripts/maven-tool.sh"
maven_tool "$root/tools/spark" "lib/iceberg-spark-runtime-3.5_2.12-*.jar" bash -c \
	'rm -rf target/lib && mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DoutputDirectory=target/lib -DincludeScope=runtime'

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	exit 0
fi
[[ -x "$venv/bin/python" ]] || bash "$root/scripts/setup-python.sh"
"$venv/bin/python" -m pip install --quiet -r "$req"
"$venv/bin/python" -c 'import pyspark; assert pyspark.__version__.startswith("3.5.")'
echo "$want" >"$stamp"
echo "spark peer installed: pyspark in $venv, Iceberg runtime in $root/tools/spark/target/lib"
