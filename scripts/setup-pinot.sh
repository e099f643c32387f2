#!/usr/bin/env bash
# Builds floe's Pinot harness (tools/pinot-harness): Apache Pinot 1.5.1's own
# segment loader, reader and creator behind a small JSON CLI that
# internal/pinottest drives. Maven downloads into ~/.m2; the build lands in
# tools/pinot-harness/target/ (classes + lib/*.jar, gitignored).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/maven-tool.sh"
maven_tool "$root/tools/pinot-harness" "lib/pinot-segment-local-*.jar" bash -c 'rm -rf target/lib target/classes && mvn -q -B -Dstyle.color=never package'
test -f "$root/tools/pinot-harness/target/classes/dev/floe/harness/Main.class"
