#!/usr/bin/env bash
# Installs Debian's Chromium, which the status page test drives headless.
# Idempotent and instant when chromium is already on PATH.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
apt-get -o DPkg::Lock::Timeout=600 update
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium fonts-dejavu-core
chromium --version
