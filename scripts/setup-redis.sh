#!/usr/bin/env bash
# Installs Debian's redis-server, the real Redis floe's integration tests
# run against (internal/testpeer starts its own instance on a free loopback
# port). Idempotent and instant when redis-server is already on PATH. The
# distribution's system service is kept from running: tests never use it.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
	exit 0
fi

if [[ $EUID -ne 0 ]]; then
	echo "setup-redis: redis-server is missing and installing it needs root (apt-get install -y redis-server)" >&2
	exit 1
fi

# Keep the package's init script from starting the system service during
# installation; only when no policy is in place already.
policy=/usr/sbin/policy-rc.d
own_policy=false
if [[ ! -e $policy ]]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 0755 "$policy"
	own_policy=true
fi
cleanup() { if $own_policy; then rm -f "$policy"; fi; }
trap cleanup EXIT

apt_opts=(-o DPkg::Lock::Timeout=600)
apt-get "${apt_opts[@]}" update
DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y --no-install-recommends redis-server

# Should anything have started it anyway, stop it.
if command -v service >/dev/null 2>&1; then
	service redis-server stop >/dev/null 2>&1 || true
fi

command -v redis-server >/dev/null
redis-server --version
