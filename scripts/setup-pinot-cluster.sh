#!/usr/bin/env bash
# Builds the Pinot test cluster launcher (tools/pinot-cluster): pinot-tools
# and its dependencies copied into tools/pinot-cluster/target/lib, plus a
# small launcher that starts ZooKeeper, controller, broker and server roles
# (internal/testpeer.StartPinot runs them). Installs Java 17 and Maven with apt
# when they are missing; Maven downloads into ~/.m2 (about 200 MB cold).
# Idempotent: a stamp holding the hash of the pom and the sources makes a
# second run return at once, without starting Maven.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="$root/tools/pinot-cluster"
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
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -f "$target/classes/dev/floe/cluster/Launch.class" ]] &&
	compgen -G "$target/lib/pinot-server-*.jar" >/dev/null; then
	echo "pinot cluster up to date: $target"
	exit 0
fi

if ! java_ok || ! command -v mvn >/dev/null 2>&1; then
	apt-get update
	apt-get install -y openjdk-17-jdk-headless maven
fi

rm -rf "$target/lib" "$target/classes"
(cd "$tool" && mvn -q -B -Dstyle.color=never package)
echo "$want" >"$stamp"
echo "pinot cluster built: $target"
