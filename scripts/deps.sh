#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages sonde needs, idempotently: when everything is
# present it is a fast no-op, and it runs `apt-get update` only when
# something is missing.
#
#   scripts/deps.sh build   what building sonde needs (make run, make build)
#   scripts/deps.sh test    what the tests and benchmarks need besides
#   scripts/deps.sh         both
set -eu

# Compiler, build system, kernel headers; clang and bpftool build the BPF
# programs and their skeletons; libraries sonde links; scdoc the man pages.
BUILD="
gcc make meson ninja-build pkg-config linux-libc-dev
clang llvm libbpf-dev bpftool
libelf-dev libdw-dev zlib1g-dev libiberty-dev
libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev
scdoc
"

# Test runners and the oracles tests compare sonde with (strace, perf,
# elfutils' and binutils' addr2line and c++filt, go tool pprof, bpftrace,
# gperftools, rustc for Rust fixtures), systemtap's sdt.h for USDT
# fixtures, qemu and busybox for the kernel tier, gawk and bc for DTrace's
# own test suite, bash-completion for the completion test, gcc-multilib
# for the 32-bit programs ktrace records, prometheus (and its promtool)
# for sonde agent's, lld (ld64.lld) with llvm's dsymutil and
# llvm-symbolizer for kptrace's Mach-O fixtures and oracle; node (its npm)
# and chromium for kdump's timeline opened in speedscope (tests/e2e/browser:
# speedscope and playwright-core from npm).
TEST="
libcmocka-dev python3 python3-pytest lld
elfutils binutils linux-perf bpftrace strace util-linux procps time
systemtap-sdt-dev golang-go libgoogle-perftools-dev rustc g++
qemu-system-x86 busybox-static cpio xz-utils
gawk bc bash-completion gcc-multilib
prometheus
nodejs chromium
"

case ${1:-all} in
build) PKGS=$BUILD ;;
test) PKGS=$TEST ;;
all) PKGS="$BUILD $TEST" ;;
*) echo "usage: scripts/deps.sh [build|test]" >&2; exit 2 ;;
esac

# One dpkg-query for all: packages it does not know are reported on stderr.
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PKGS 2>/dev/null |
	awk '$2 == "installed" { print $1 }' || true)
missing=""
for p in $PKGS; do
	echo "$installed" | grep -qx "$p" || missing="$missing $p"
done
# The npm packages of the browser tests (pinned in package-lock.json).
browser_deps() {
	dir=$(dirname "$0")/../tests/e2e/browser
	[ -d "$dir/node_modules/speedscope" ] &&
		[ -d "$dir/node_modules/playwright-core" ] && return 0
	command -v npm >/dev/null || return 0
	echo "scripts/deps.sh: npm ci in tests/e2e/browser" >&2
	npm ci --prefix "$dir" --no-audit --no-fund >/dev/null
}

if [ -z "$missing" ]; then
	[ "${1:-all}" = build ] || browser_deps
	exit 0
fi

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
[ "${1:-all}" = build ] || browser_deps
