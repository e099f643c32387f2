#!/usr/bin/env bash
# The one-file sync benchmark of tables written one manifest per data file
# (scripts/bench-plan.sh -manifest-per-file) with the floe processes and warm
# runs keeping their checkpoints in a real redis-server, started here on a
# free loopback port and stopped at the end. Writes its own block of
# docs/benchmarks.md. Usage: scripts/bench-plan-redis.sh [planbench flags]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-redis.sh
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$dir" --logfile "$dir/redis.log" --daemonize yes \
	--pidfile "$dir/redis.pid"
stop() {
	kill "$(cat "$dir/redis.pid" 2>/dev/null)" 2>/dev/null || true
	rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 50); do
	redis-cli -p "$port" ping >/dev/null 2>&1 && break
	sleep 0.1
done
bash scripts/bench-plan.sh -manifest-per-file -redis "redis://127.0.0.1:$port" "$@"
