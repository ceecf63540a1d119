#!/usr/bin/env bash
# The README's test command: install what the tests need, then run them.
#
#   bash scripts/test.sh [pytest args...]
#
# Tests compare tracekit with the tools of the field, so besides the Python packages
# (pip install -e '.[test]') they need these Debian packages: bpftool (map, prog, link
# and BTF dumps), linux-perf (perf trace), strace, gcc (test workloads), libcap2-bin
# (capsh), the arm64 cross compiler and headers (the generated arm64 flag table is
# checked against them), prometheus (the openmetrics output is scraped by a real
# Prometheus server; about 15 s to install). As root on Debian the missing ones are installed with apt-get;
# elsewhere the script says which are missing and the tests that need them fail or skip.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

# command -> Debian package
declare -A NEED=([bpftool]=bpftool [perf]=linux-perf [strace]=strace [gcc]=gcc [capsh]=libcap2-bin
  [prometheus]=prometheus
  [aarch64-linux-gnu-gcc]="gcc-aarch64-linux-gnu libc6-dev-arm64-cross linux-libc-dev-arm64-cross")
missing=()
for cmd in "${!NEED[@]}"; do
  # shellcheck disable=SC2206  # a value may name several packages
  command -v "$cmd" >/dev/null 2>&1 || missing+=(${NEED[$cmd]})
done
if ((${#missing[@]})); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "scripts/test.sh: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "scripts/test.sh: missing ${missing[*]} (install them as root)" >&2
  fi
fi

python3 -m pip install -q -e '.[test]'
exec python3 -m pytest -n 2 "$@"
