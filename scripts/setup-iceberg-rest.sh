#!/usr/bin/env bash
# Assembles the classpath of Apache Iceberg's REST catalog test server from
# Maven Central into tools/iceberg-rest/target/lib (see tools/iceberg-rest/pom.xml).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/maven-tool.sh"
maven_tool "$root/tools/iceberg-rest" "lib/iceberg-open-api-*-test-fixtures.jar" bash -c \
	'rm -rf target/lib && mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DoutputDirectory=target/lib -DincludeScope=runtime'
