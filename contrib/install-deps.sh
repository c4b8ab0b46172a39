#!/bin/sh
# Install everything ocrec needs to build, test and benchmark on Debian 12.
set -e
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
PKGS="build-essential pkg-config libpfm4-dev libjansson-dev libcurl4-openssl-dev libelf-dev
      libdw-dev libcapstone-dev libzstd-dev zlib1g-dev libunicorn-dev linux-perf clang llvm-14 libclang-rt-14-dev
      autofdo bolt-16 golang-go chromium valgrind hyperfine groff-base groff python3 curl cpuid gawk mawk"
missing=
for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
