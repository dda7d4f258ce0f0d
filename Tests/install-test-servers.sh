#!/usr/bin/env bash
# Installs what HotPotato's integration tests need when it is missing: nginx, openssl and curl from apt
# (openssl makes the test certificate authority), httpbin and h2 from PyPI (h2 runs the tests' own
# HTTP/2 fault server). The tests start and stop their
# own servers on 127.0.0.1 with their own configurations; nothing is left running or enabled.
# `Tests/run-all.sh` runs it first; it can be run on its own, as often as you like (it installs
# only what is missing): `./Tests/install-test-servers.sh`.
#
# Where something cannot be installed (no apt, no root, no network), it says so loudly: the tests
# that need nginx or httpbin are then reported as skipped; without openssl the HTTPS tests fail.
#
# Usage: install-test-servers.sh [--check]
#   --check                    install nothing; only report what is missing
# Environment:
#   HOTPOTATO_SKIP_INSTALL=1   install nothing (as --check)
# Exit status: 0 when everything is there, 2 when something is missing (and was reported), other
# values for errors of the script itself.
set -euo pipefail

check_only=0
case "${1:-}" in
  "") ;;
  --check) check_only=1 ;;
  *) printf 'usage: %s [--check]\n' "$0" >&2; exit 64 ;;
esac
if [[ "${HOTPOTATO_SKIP_INSTALL:-0}" == 1 ]]; then check_only=1; fi

say() { printf '\n==> %s\n' "$*"; }
warn() { printf '\n!!! %s\n' "$*" >&2; }

as_root() {
  if [[ $(id -u) == 0 ]]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"; else return 1; fi
}

have_nginx() { command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]]; }
have_httpbin() { command -v python3 >/dev/null 2>&1 && python3 -c 'import httpbin' >/dev/null 2>&1; }
have_openssl() { command -v openssl >/dev/null 2>&1; }
have_h2() { command -v python3 >/dev/null 2>&1 && python3 -c 'import h2.connection' >/dev/null 2>&1; }

apt_updated=0
apt_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  if [[ $apt_updated == 0 ]]; then as_root apt-get update -qq || return 1; apt_updated=1; fi
  # Keep the package's own service from starting: the tests run nginx with their own config.
  as_root env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if [[ $check_only == 0 ]]; then
  if ! have_nginx; then
    say "Installing nginx (apt)"
    apt_install nginx-light || apt_install nginx || true
  fi
  if ! command -v curl >/dev/null 2>&1; then
    say "Installing curl (apt), for the cURLDescription test and the benchmark smoke"
    apt_install curl || true
  fi
  for tool in brotli zstd; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      say "Installing $tool (apt), for the content-decoding fixtures"
      apt_install "$tool" || true
    fi
  done
  if ! have_openssl; then
    say "Installing openssl (apt), for the test certificate authority"
    apt_install openssl || true
  fi
  if ! have_httpbin; then
    say "Installing httpbin (PyPI)"
    if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
      apt_install python3 python3-pip || true
    fi
    python3 -m pip install --quiet --disable-pip-version-check httpbin 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages httpbin \
      || true
  fi
  if ! have_h2; then
    say "Installing h2 (PyPI), for the HTTP/2 fault server"
    python3 -m pip install --quiet --disable-pip-version-check h2 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages h2 \
      || true
  fi
fi

status=0
if [[ $check_only == 0 ]]; then how="is NOT installed and could not be installed"; else how="is NOT installed (installing was switched off)"; fi
have_nginx || { warn "nginx $how: the nginx tests will be SKIPPED"; status=2; }
have_httpbin || { warn "httpbin $how: the httpbin tests will be SKIPPED"; status=2; }
have_h2 || { warn "python3's h2 $how: the HTTP/2 fault tests will be SKIPPED"; status=2; }
have_openssl || { warn "openssl $how: the HTTPS tests will FAIL"; status=2; }
for tool in brotli zstd; do
  command -v "$tool" >/dev/null 2>&1 || { warn "$tool $how: the content-decoding tests will FAIL"; status=2; }
done
command -v curl >/dev/null 2>&1 || { warn "curl $how: the cURLDescription test will be SKIPPED"; status=2; }
exit $status
