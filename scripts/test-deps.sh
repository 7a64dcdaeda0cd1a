#!/usr/bin/env bash
# Installs what the unit tests use beyond Go: bubblewrap (bwrap), which
# the native loop's bash tool sandboxes commands with on Linux. Idempotent
# and instant when bwrap is already there; installs with apt-get only when
# it can (root, or passwordless sudo). Elsewhere, or when it cannot, it
# says so and the sandbox tests that need bwrap skip.
set -uo pipefail
export GOTOOLCHAIN=go1.27.3 # the patched Go go.mod needs; see the Makefile

[[ $(uname -s) == Linux ]] || exit 0
if command -v bwrap >/dev/null 2>&1; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "test-deps: bwrap missing and no apt-get; install bubblewrap with your package manager (sandbox tests will skip)" >&2
	exit 0
fi
sudo=()
if ((EUID != 0)); then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=(sudo -n)
	else
		echo "test-deps: bwrap missing; run 'sudo apt-get install -y bubblewrap' (sandbox tests will skip)" >&2
		exit 0
	fi
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
# A fresh image has no package lists: update once when the install fails.
if ! "${sudo[@]}" apt-get install -y --no-install-recommends bubblewrap >"$log" 2>&1; then
	"${sudo[@]}" apt-get update >>"$log" 2>&1
	"${sudo[@]}" apt-get install -y --no-install-recommends bubblewrap >>"$log" 2>&1 ||
		{ echo "test-deps: FAILED to install bubblewrap:" >&2; tail -5 "$log" >&2; exit 1; }
fi
echo "test-deps: bubblewrap $(bwrap --version 2>/dev/null | awk '{print $2}') installed"
