#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs every Debian package that sonde's build, tests and benchmarks need.
# Idempotent: when everything is present it is a fast no-op, and it only runs
# `apt-get update` when something is missing.
set -eu

PKGS="
gcc make meson ninja-build pkg-config linux-libc-dev
clang llvm libbpf-dev bpftool binutils
libelf-dev libdw-dev zlib1g-dev
libprotobuf-c-dev protobuf-c-compiler
libcmocka-dev python3 python3-pytest scdoc
elfutils linux-perf bpftrace strace util-linux procps time systemtap-sdt-dev
golang-go libgoogle-perftools-dev rustc
qemu-system-x86 busybox-static cpio xz-utils
"

# One dpkg-query for all: packages it does not know are reported on stderr.
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PKGS 2>/dev/null |
	awk '$2 == "installed" { print $1 }' || true)
missing=""
for p in $PKGS; do
	echo "$installed" | grep -qx "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "scripts/deps.sh: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "scripts/deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt or dpkg run instead of failing on its lock.
lock="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
apt-get $lock update -qq
# shellcheck disable=SC2086
apt-get $lock install -y -qq --no-install-recommends $missing >/dev/null
