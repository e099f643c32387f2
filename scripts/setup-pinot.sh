#!/usr/bin/env bash
# Builds floe's Pinot harness (tools/pinot-harness): Apache Pinot 1.5.1's own
# segment loader, reader and creator behind a small JSON CLI that
# internal/pinottest drives. Installs Java 17 and Maven with apt when they are
# missing; Maven downloads into ~/.m2, the build lands in
# tools/pinot-harness/target/ (classes + lib/*.jar, gitignored).
# Idempotent: a stamp holding the hash of the pom and the sources makes a
# second run return at once, without starting Maven.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="$root/tools/pinot-harness"
target="$tool/target"
stamp="$target/.floe-build.sha256"

source_hash() {
	(cd "$tool" && find pom.xml src -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1
}

java_ok() {
	command -v java >/dev/null 2>&1 || return 1
	local v
	v="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
	[[ "${v%%.*}" -ge 17 ]]
}

want="$(source_hash)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -f "$target/classes/dev/floe/harness/Main.class" ]] &&
	compgen -G "$target/lib/pinot-segment-local-*.jar" >/dev/null; then
	echo "pinot harness up to date: $target"
	exit 0
fi

if ! java_ok || ! command -v mvn >/dev/null 2>&1; then
	apt-get update
	apt-get install -y openjdk-17-jdk-headless maven
fi

rm -rf "$target/lib" "$target/classes"
(cd "$tool" && mvn -q -B -Dstyle.color=never package)
echo "$want" >"$stamp"
echo "pinot harness built: $target"
