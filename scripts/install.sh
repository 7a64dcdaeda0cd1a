#!/usr/bin/env bash
# Installs hub into PREFIX/bin (make install [PREFIX=~/.local]
# [INSTALL_NAME=hubctl]: another name where GitHub's hub owns "hub"; hub
# names itself after its file). When that directory is not on PATH, or
# another program of that name comes first on PATH, it says so and prints
# the line that fixes it.
set -euo pipefail
export GOTOOLCHAIN=go1.27.3 # the patched Go go.mod needs; see the Makefile
prefix=${1:-$HOME/.local}
bindir=$prefix/bin
name=${INSTALL_NAME:-hub}
case $name in
'' | */* | .*) echo "install: INSTALL_NAME=$name is not a file name" >&2; exit 2 ;;
esac
exe=$name$(${GO:-go} env GOEXE)
mkdir -p "$bindir"
CGO_ENABLED=0 ${GO:-go} build -trimpath -ldflags "${LDFLAGS:-}" -o "$bindir/$exe" ./cmd/hub
# Messages go to stderr: `make install && hub acp` keeps stdout for ACP.
echo "installed $("$bindir/$exe" version) to $bindir/$exe" >&2
# The PATH line names $HOME rather than this user's home, for copying.
shown=${bindir/#$HOME/\$HOME}

case ":$PATH:" in
*":$bindir:"* | *":$bindir/:"*)
	found=$(command -v "$name" || true)
	if [ -n "$found" ] && [ "$found" != "$bindir/$exe" ] && [ "$found" != "$bindir/$name" ]; then
		echo "note: $found comes before $bindir on PATH; run $bindir/$exe, or put $bindir first in PATH" >&2
	fi
	;;
*)
	shell=$(basename "${SHELL:-sh}")
	case $shell in
	zsh) rc='~/.zshrc' ;;
	bash) rc='~/.bashrc (and ~/.profile)' ;;
	fish) rc=''; echo "note: $bindir is not on PATH; run: fish_add_path $shown" >&2 ;;
	*) rc='~/.profile' ;;
	esac
	if [ -n "$rc" ]; then
		echo "note: $bindir is not on PATH. Until you add this line to $rc, run $bindir/$exe:" >&2
		echo "  export PATH=\"$shown:\$PATH\"" >&2
	fi
	;;
esac
