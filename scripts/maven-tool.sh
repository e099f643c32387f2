# Shared by the setup scripts that build a Maven tool under tools/<name>:
# installs Java 17 and Maven with apt when missing, and rebuilds only when
# the tool's pom.xml or sources changed (a stamp holds their hash), so a
# second run returns at once without starting Maven. Source it, then call
#   maven_tool <tool dir> <file that must exist after a build> <build command...>
# The build command runs in the tool dir.

java_ok() {
	command -v java >/dev/null 2>&1 || return 1
	local v
	v="$(java -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
	[[ "${v%%.*}" -ge 17 ]]
}

tool_hash() {
	local paths=(pom.xml)
	[[ -d "$1/src" ]] && paths+=(src)
	(cd "$1" && find "${paths[@]}" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1
}

maven_tool() {
	local dir="$1" marker="$2"
	shift 2
	local stamp="$dir/target/.floe-build.sha256" want
	want="$(tool_hash "$dir")"
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && compgen -G "$dir/target/$marker" >/dev/null; then
		echo "$(basename "$dir") up to date: $dir/target"
		return 0
	fi
	if ! java_ok || ! command -v mvn >/dev/null 2>&1; then
		apt-get update
		apt-get install -y openjdk-17-jdk-headless maven
	fi
	(cd "$dir" && "$@")
	compgen -G "$dir/target/$marker" >/dev/null || {
		echo "$(basename "$dir"): build did not produce target/$marker" >&2
		return 1
	}
	echo "$want" >"$stamp"
	echo "$(basename "$dir") built: $dir/target"
}
