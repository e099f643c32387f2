#!/usr/bin/env bash
# Assembles the classpath of Apache Iceberg's REST catalog test server from
# Maven Central into tools/iceberg-rest/target/lib (see tools/iceberg-rest/pom.xml).
# Needs Java 17 and Maven. Idempotent: a stamp holding the hash of the POM
# makes a second run return at once.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/tools/iceberg-rest"
lib="$dir/target/lib"
stamp="$dir/target/.floe-pom.sha256"

want="$(sha256sum "$dir/pom.xml" | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && ls "$lib"/iceberg-open-api-*-test-fixtures.jar >/dev/null 2>&1; then
	exit 0
fi

missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if ((${#missing[@]})); then
	apt-get update
	apt-get install -y "${missing[@]}"
fi

rm -rf "$lib"
mvn -q -B -f "$dir/pom.xml" dependency:copy-dependencies \
	-DoutputDirectory="$lib" -DincludeScope=runtime
ls "$lib"/iceberg-open-api-*-test-fixtures.jar >/dev/null
echo "$want" >"$stamp"
