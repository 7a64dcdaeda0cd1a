#!/usr/bin/env bash
# make test-windows: every package's tests, compiled for windows/amd64, run
# as Windows executables under Wine 10, one line per package and a total.
#
# Wine 10 comes from Debian trixie. Installing it into this (bookworm) system
# would upgrade libc, so it lives in a root of its own made once with
# mmdebstrap and cached outside the repository (HUB_WINE_ROOT, default
# /var/cache/hub/wine-root); the tests run there with chroot, inside a private
# mount namespace so no mount outlives the run. Needs root (chroot, mount).
#
# Usage: scripts/test-windows.sh [PACKAGE_PATTERN...]   (default ./...)
set -euo pipefail
export GOTOOLCHAIN=go1.27.3 # the patched Go go.mod needs; see the Makefile
cd "$(dirname "$0")/.."
repo=$(pwd)
root=${HUB_WINE_ROOT:-/var/cache/hub/wine-root}
timeout=${HUB_WINE_TIMEOUT:-15m} # as make test's -timeout: the acp package runs every shapes row through hub acp

die() { echo "test-windows: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root for chroot and mount (CI and the developer machines run as root)"

build_root() {
	command -v mmdebstrap >/dev/null || {
		echo "test-windows: installing mmdebstrap" >&2
		apt-get update -qq && apt-get install -y -qq mmdebstrap >/dev/null
	} || die "cannot install mmdebstrap"
	echo "test-windows: building the Wine root in $root (once)" >&2
	rm -rf "$root.tmp"
	mkdir -p "$(dirname "$root")"
	mmdebstrap --quiet --variant=apt --include=wine,wine64,ca-certificates trixie "$root.tmp" \
		http://deb.debian.org/debian >&2 || die "mmdebstrap failed"
	touch "$root.tmp/.hub-wine-root"
	rm -rf "$root"
	mv "$root.tmp" "$root"
}
[ -e "$root/.hub-wine-root" ] || build_root

# Compile each package's tests (a package without tests is skipped).
# One output folder per checkout, so two checkouts can run at once.
out=$root/tmp/hubtest${repo//\//_}
inside=${out#"$root"}
rm -rf "$out" && mkdir -p "$out"
pkgs=$(GOOS=windows go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' "${@:-./...}" | grep -v '/e2e ') || true
[ -n "$pkgs" ] || die "no packages with tests"
echo "== compile hub.exe and the tests for windows/amd64"
# hub.exe, for the end-to-end package (e2e/windows), as Wine names it.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$out/hub.exe" ./cmd/hub || die "cannot build hub.exe"
hubbin="Z:${inside//\//\\}\\hub.exe"
while read -r pkg dir; do
	name=${pkg//\//_}
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go test -c -o "$out/$name.test.exe" "$pkg" >"$out/$name.build.log" 2>&1 ||
		echo "$pkg" >>"$out/build-failures"
done <<<"$pkgs"

# Runs inside the private mount namespace: the repository is bound at its
# own path inside the root, so each test binary starts in its package's
# directory (Wine's Z: drive is /).
run_all() {
	mkdir -p "$root/proc" "$root/dev" "$root$repo"
	mount --bind /proc "$root/proc"
	mount --bind /dev "$root/dev"
	mount --bind "$repo" "$root$repo"
	# shared/ beside the repository holds the ACP schema the golden tests read.
	if [ -d "$repo/../shared" ]; then
		mkdir -p "$root$repo/../shared"
		mount --bind "$repo/../shared" "$root$repo/../shared"
	fi
	local wenv=(/usr/bin/env -i HOME=/root PATH=/usr/bin:/bin WINEDEBUG=-all WINEPREFIX=/root/.wine XDG_RUNTIME_DIR=/tmp)
	# The prefix, made once (a fresh root has none yet), and made again when
	# an earlier making was cut short: wineboot's server writes the registry
	# (PATH, ComSpec: cmd.exe for the hook tests) only when it exits, so a
	# prefix counts once its registry holds them.
	if [ ! -e "$root/root/.wine/.hub-prefix" ]; then
		rm -rf "$root/root/.wine"
		chroot "$root" "${wenv[@]}" wineboot -i >/dev/null 2>&1 || true
		chroot "$root" "${wenv[@]}" wineserver -w || true
		grep -q '"ComSpec"' "$root/root/.wine/system.reg" 2>/dev/null || { echo "test-windows: wineboot made no usable prefix" >&2; return 1; }
		touch "$root/root/.wine/.hub-prefix"
	fi
	# A wineserver of its own: the server opens files for its clients, so
	# one started by another checkout's run, in another mount namespace,
	# would not see this repository ("Path not found" for testdata).
	# Debian's Wine keeps the server's socket in /tmp/<the name in the
	# prefix's wineserver file>; this run sees a private one there.
	local sockdir
	sockdir=$(cat "$root/root/.wine/wineserver" 2>/dev/null) || true
	if [ -n "$sockdir" ]; then
		mkdir -p -m 700 "$out/wineserver" "$root/tmp/$sockdir"
		mount --bind "$out/wineserver" "$root/tmp/$sockdir"
	fi
	# One persistent server for the whole run: a server that exits when its
	# last client leaves can reset the next package's first connection
	# ("wine client error: recvmsg: Connection reset by peer").
	chroot "$root" "${wenv[@]}" wineserver -p
	trap 'chroot "$root" "${wenv[@]}" wineserver -k 2>/dev/null || true' EXIT
	local passed=0 failed=0 skipped=0
	while read -r pkg dir; do
		local name=${pkg//\//_} log start secs status
		log=$out/$name.log
		if grep -qx "$pkg" "$out/build-failures" 2>/dev/null; then
			printf 'FAIL %-50s build failed (%s)\n' "$pkg" "$(head -c 300 "$out/$name.build.log" | tr '\n' ' ')"
			failed=$((failed + 1))
			continue
		fi
		start=$(date +%s.%N)
		if chroot "$root" "${wenv[@]}" HUB_BIN="$hubbin" /bin/sh -c 'cd "$1" && shift && exec timeout --kill-after=10s "$@"' _ "$dir" \
			"$timeout" wine "$inside/$name.test.exe" -test.v -test.timeout "$timeout" >"$log" 2>&1; then
			status=ok
			passed=$((passed + 1))
		else
			status=FAIL
			failed=$((failed + 1))
		fi
		secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')
		local skips
		skips=$(grep -c -- '--- SKIP' "$log" || true)
		skipped=$((skipped + skips))
		printf '%-4s %-50s %5.1fs  %s skipped\n' "$status" "$pkg" "$secs" "$skips"
		if [ "$status" = FAIL ]; then
			grep -E -- '^(--- FAIL|panic:|\s+\S+_test\.go:[0-9]+:)' "$log" | head -8 | sed 's/^/     /'
		fi
	done <<<"$pkgs"
	echo "windows packages: $passed passed, $failed failed ($skipped tests skipped; logs in $out)"
	[ "$failed" = 0 ]
}
export -f run_all
export root repo out inside timeout pkgs hubbin
unshare --mount --propagation private bash -c run_all
