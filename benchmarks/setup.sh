#!/usr/bin/env bash
# Install what benchmarks/bulk_shield.py needs: nginx with the echo module (Debian).
set -euo pipefail
if [ -x /usr/sbin/nginx ] && [ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ]; then
  exit 0
fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx-light libnginx-mod-http-echo
# Debian starts the packaged service; the benchmark runs its own nginx.
$SUDO service nginx stop >/dev/null 2>&1 || true
