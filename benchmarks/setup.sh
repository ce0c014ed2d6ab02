#!/usr/bin/env bash
# Install what benchmarks/bulk_shield.py needs (Debian): nginx with the echo module, and
# valgrind for `--instructions` (instruction counts, which a shared machine's load does
# not move).
set -euo pipefail
if [ -x /usr/sbin/nginx ] && [ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] \
  && command -v valgrind >/dev/null; then
  exit 0
fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx-light libnginx-mod-http-echo \
  valgrind
# Debian starts the packaged service; the benchmark runs its own nginx.
$SUDO service nginx stop >/dev/null 2>&1 || true
