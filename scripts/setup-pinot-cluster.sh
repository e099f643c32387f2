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
source "$root/scripts/maven-tool.sh"
maven_tool "$root/tools/pinot-cluster" "lib/pinot-server-*.jar" bash -c 'rm -rf target/lib target/classes && mvn -q -B -Dstyle.color=never package'
test -f "$root/tools/pinot-cluster/target/classes/dev/floe/cluster/Launch.class"
