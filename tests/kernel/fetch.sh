#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fetches a Debian bookworm cloud kernel for the qemu test tier (tests/kernel):
# the kernel image, its -dbg package (the DWARF vmlinux) and the headers an
# out-of-tree module builds against. Packages are downloaded with
# `apt-get download` (never installed) and only the files the tier needs are
# extracted, into $SONDE_KERNEL_CACHE/<release>/root/ laid out as on a real
# system (boot/, usr/lib/debug/boot/, usr/src/, usr/lib/linux-kbuild-6.1/).
#
#   tests/kernel/fetch.sh [--refresh] [RELEASE]
#
# Prints the release directory on stdout. With no RELEASE it uses the newest
# release already in the cache (a no-op that takes milliseconds), or when the
# cache is empty or --refresh is given, the newest 6.1.0-N cloud kernel that
# apt-cache knows, recorded in $SONDE_KERNEL_CACHE/current.
set -eu

CACHE=${SONDE_KERNEL_CACHE:-/var/cache/sonde/kernel}
refresh=0
if [ "${1:-}" = --refresh ]; then
	refresh=1
	shift
fi
rel=${1:-}

die() {
	echo "tests/kernel/fetch.sh: $*" >&2
	exit 1
}

if [ -z "$rel" ] && [ $refresh = 0 ] && [ -f "$CACHE/current" ]; then
	rel=$(cat "$CACHE/current")
	if [ -f "$CACHE/$rel/.complete" ]; then
		echo "$CACHE/$rel"
		exit 0
	fi
fi
if [ -z "$rel" ] || [ $refresh = 1 ]; then
	command -v apt-cache >/dev/null || die "apt-cache not found (need Debian's apt)"
	abi=$(apt-cache pkgnames linux-image-6.1.0- 2>/dev/null |
		sed -n 's/^linux-image-\(6\.1\.0-[0-9]*\)-cloud-amd64-unsigned$/\1/p' |
		sort -V | tail -n 1)
	[ -n "$abi" ] || die "no linux-image-6.1.0-*-cloud-amd64-unsigned package known to apt (bookworm sources missing?)"
	rel=$abi-cloud-amd64
fi
case $rel in
6.1.0-*-cloud-amd64) ;;
*) die "unexpected release '$rel' (want 6.1.0-N-cloud-amd64)" ;;
esac
abi=${rel%-cloud-amd64}
dir=$CACHE/$rel
if [ -f "$dir/.complete" ]; then
	echo "$rel" >"$CACHE/current"
	echo "$dir"
	exit 0
fi

[ "$(id -u)" = 0 ] || [ -w "$CACHE" ] || [ -w "$(dirname "$CACHE")" ] ||
	die "cannot write $CACHE (run as root or set SONDE_KERNEL_CACHE)"
mkdir -p "$CACHE"
# Test runs in other worktrees share the cache: one fetch at a time.
exec 9>"$CACHE/.fetch.lock"
flock 9
if [ -f "$dir/.complete" ]; then
	echo "$rel" >"$CACHE/current"
	echo "$dir"
	exit 0
fi
work=$CACHE/.work-$rel.$$
trap 'rm -rf "$work"' EXIT INT TERM
rm -rf "$work"
mkdir -p "$work/debs" "$work/root"

# linux-kbuild-6.1 carries no ABI number: ask for the image's version.
ver=$(apt-cache show --no-all-versions "linux-image-$rel-unsigned" 2>/dev/null |
	sed -n 's/^Version: //p' | head -n 1)
[ -n "$ver" ] || die "apt knows no linux-image-$rel-unsigned"
pkgs="linux-image-$rel-unsigned linux-image-$rel-dbg
linux-headers-$rel linux-headers-$abi-common linux-kbuild-6.1=$ver"
echo "tests/kernel/fetch.sh: downloading $(echo $pkgs)" >&2
# apt-get download runs as the _apt user when it can; let it write here.
chmod 0777 "$work/debs"
# shellcheck disable=SC2086
(cd "$work/debs" && apt-get download -q $pkgs >/dev/null) ||
	die "apt-get download failed for: $(echo $pkgs)"

# Extracts from package $1 the members matching the tar patterns that follow.
extract() {
	deb=$(ls "$work/debs/$1"_*.deb) || die "package $1 was not downloaded"
	shift
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$work/root" --wildcards --no-wildcards-match-slash "$@" ||
		die "cannot extract $* from $deb"
}
extract "linux-image-$rel-unsigned" "./boot/vmlinuz-$rel" "./boot/config-$rel"
extract "linux-image-$rel-dbg" "./usr/lib/debug/boot/vmlinux-$rel" \
	"./usr/lib/debug/boot/System.map-$rel"
extract "linux-headers-$rel" "./usr/src/linux-headers-$rel"
extract "linux-headers-$abi-common" "./usr/src/linux-headers-$abi-common"
extract linux-kbuild-6.1 ./usr/lib/linux-kbuild-6.1 ./usr/src/linux-kbuild-6.1

# The headers' Makefile includes the common tree by absolute path.
sed -i "s|/usr/src/linux-headers-$abi-common/|$dir/root/usr/src/linux-headers-$abi-common/|" \
	"$work/root/usr/src/linux-headers-$rel/Makefile"
for p in $pkgs; do
	p=${p%%=*}
	dpkg-deb -f "$work/debs/${p}"_*.deb Package Version | sed 's/^[^:]*: //' | paste -sd' '
done >"$work/PACKAGES"

rm -rf "$work/debs" "$dir"
mkdir -p "$dir"
mv "$work/root" "$dir/root"
mv "$work/PACKAGES" "$dir/PACKAGES"
echo "$rel" >"$dir/release"
touch "$dir/.complete"
echo "$rel" >"$CACHE/current"
echo "$dir"
