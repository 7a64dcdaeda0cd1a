#!/usr/bin/env bash
# Installs the pinned agent CLIs and the ACP TypeScript SDK client deps into
# the e2e cache: CACHE/<agent>/node_modules/.bin/<cli> and CACHE/acp-sdk.
# Idempotent (a prefix whose installed versions match is skipped); installs
# run in parallel, one npm prefix each. Usage: scripts/e2e-deps.sh [CACHE]
set -uo pipefail
export GOTOOLCHAIN=go1.27.3 # the patched Go go.mod needs; see the Makefile

cache=${1:-${HUB_E2E_CACHE:-.cache/e2e}}
mkdir -p "$cache" || { echo "e2e-deps: cannot create cache dir $cache" >&2; exit 1; }
cache=$(cd "$cache" && pwd)

# agent | npm package | version | bin
agents=(
	"claude|@anthropic-ai/claude-code|2.1.330|claude"
	"codex|@openai/codex|0.169.0|codex"
	"gemini|@google/gemini-cli|0.61.0|gemini"
	"qodercli|@qoder-ai/qodercli|1.1.52|qodercli"
	"pi|@mariozechner/pi-coding-agent|0.73.1|pi"
)
# Catalogued ACP agents (adapters/catalog) whose handshake e2e checks, under
# CACHE/catalog/<name>. kilo is pinned at 7.7.7: the npm registry this runs
# against serves @kilocode/cli 7.8.1 without its platform binaries.
catalog=(
	"opencode|opencode-ai|1.18.33|opencode"
	"copilot|@github/copilot|1.0.102|copilot"
	"qwen|@qwen-code/qwen-code|0.24.4|qwen"
	"auggie|@augmentcode/auggie|0.36.0|auggie"
	"kilo|@kilocode/cli|7.7.7|kilo"
)
# The dedicated ACP adapters hub is measured against (make bench only:
# HUB_E2E_BENCH=1). name | npm package | version | bin
adapters=(
	"claude-agent-acp|@agentclientprotocol/claude-agent-acp|0.101.0|claude-agent-acp"
	"codex-acp|@agentclientprotocol/codex-acp|2.6.0|codex-acp"
	"claude-code-acp|@zed-industries/claude-code-acp|0.16.2|claude-code-acp"
)
# The Node conformance client: ACP SDK, its zod peer, Ajv for schema checks.
sdk_pkgs=("@agentclientprotocol/sdk@2.4.0" "zod@4.6.7" "ajv@8.20.0")

# installed_version PREFIX PKG prints the version installed under PREFIX.
installed_version() {
	local pj="$1/node_modules/$2/package.json"
	[[ -f $pj ]] && node -p "require(process.argv[1]).version" "$pj" 2>/dev/null
}

# Install scripts run with HOME inside the cache: qodercli's postinstall
# otherwise writes ~/.qoder (which doctor would then read) and touches the
# user's global git ignore. npm keeps its own download cache.
npm_cache=$(npm config get cache 2>/dev/null) || npm_cache=
install_home="$cache/home"

# npm_install PREFIX LOG SPEC... runs one quiet npm install into PREFIX.
npm_install() {
	local prefix=$1 log=$2
	shift 2
	mkdir -p "$prefix" "$install_home"
	HOME=$install_home npm_config_cache=${npm_cache:-$install_home/.npm} \
		npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$@" >"$log" 2>&1
}

# install_agent NAME PKG VER BIN [DIR]: prints one status line or fails with
# one. The prefix is CACHE/DIR/NAME (DIR defaults to the cache itself).
install_agent() {
	local name=$1 pkg=$2 ver=$3 bin=$4 dir=${5:-.}
	mkdir -p "$cache/$dir"
	local prefix="$cache/$dir/$name" log="$cache/$dir/$name.log" start=$SECONDS state
	if [[ $(installed_version "$prefix" "$pkg") == "$ver" && -x $prefix/node_modules/.bin/$bin ]]; then
		state="cached"
	else
		npm_install "$prefix" "$log" "$pkg@$ver" ||
			{ echo "e2e-deps: FAILED $name: npm install $pkg@$ver (see $log)"; return 1; }
		state="installed in $((SECONDS - start))s"
	fi
	local exe="$prefix/node_modules/.bin/$bin"
	[[ -x $exe ]] || { echo "e2e-deps: FAILED $name: $exe missing after install (see $log)"; return 1; }
	# Run --version in a throwaway HOME so the CLI cannot touch the user's config.
	local home out
	home=$(mktemp -d)
	out=$(HOME=$home timeout 60 "$exe" --version 2>&1 </dev/null)
	rm -rf "$home"
	[[ $out == *"$ver"* ]] ||
		{ echo "e2e-deps: FAILED $name: '$bin --version' printed '${out//$'\n'/ }', want $ver"; return 1; }
	echo "e2e-deps: $name $ver ok ($state)"
}

# install_adapter NAME PKG VER BIN installs a dedicated ACP adapter (they
# have no --version to check; the installed package version is checked).
install_adapter() {
	local name=$1 pkg=$2 ver=$3 bin=$4
	local prefix="$cache/bench/$name" log="$cache/bench/$name.log" start=$SECONDS state="cached"
	mkdir -p "$cache/bench"
	if [[ $(installed_version "$prefix" "$pkg") != "$ver" || ! -x $prefix/node_modules/.bin/$bin ]]; then
		npm_install "$prefix" "$log" "$pkg@$ver" ||
			{ echo "e2e-deps: FAILED $name: npm install $pkg@$ver (see $log)"; return 1; }
		state="installed in $((SECONDS - start))s"
	fi
	[[ $(installed_version "$prefix" "$pkg") == "$ver" ]] ||
		{ echo "e2e-deps: FAILED $name: $pkg@$ver not installed (see $log)"; return 1; }
	echo "e2e-deps: $name $ver ok ($state)"
}

install_sdk() {
	local prefix="$cache/acp-sdk" log="$cache/acp-sdk.log" start=$SECONDS spec ok=1
	for spec in "${sdk_pkgs[@]}"; do
		local pkg=${spec%@*} ver=${spec##*@}
		[[ $(installed_version "$prefix" "$pkg") == "$ver" ]] || ok=0
	done
	if ((ok)); then
		echo "e2e-deps: acp-sdk ok (cached)"
		return 0
	fi
	npm_install "$prefix" "$log" "${sdk_pkgs[@]}" ||
		{ echo "e2e-deps: FAILED acp-sdk: npm install ${sdk_pkgs[*]} (see $log)"; return 1; }
	(cd "$prefix" && node --input-type=module -e "await import('@agentclientprotocol/sdk'); await import('ajv/dist/2020.js')") >>"$log" 2>&1 ||
		{ echo "e2e-deps: FAILED acp-sdk: modules do not import (see $log)"; return 1; }
	echo "e2e-deps: acp-sdk ok (installed in $((SECONDS - start))s)"
}

only=${HUB_E2E_AGENTS:-} # optional space-separated subset, e.g. "claude acp-sdk"
want() { [[ -z $only || " $only " == *" $1 "* ]]; }

pids=()
for row in "${agents[@]}"; do
	IFS='|' read -r name pkg ver bin <<<"$row"
	want "$name" || continue
	install_agent "$name" "$pkg" "$ver" "$bin" &
	pids+=($!)
done
for row in "${catalog[@]}"; do
	IFS='|' read -r name pkg ver bin <<<"$row"
	want "catalog" || want "$name" || continue
	install_agent "$name" "$pkg" "$ver" "$bin" catalog &
	pids+=($!)
done
if want acp-sdk; then
	install_sdk &
	pids+=($!)
fi
if [[ ${HUB_E2E_BENCH:-} == 1 ]]; then
	for row in "${adapters[@]}"; do
		IFS='|' read -r name pkg ver bin <<<"$row"
		install_adapter "$name" "$pkg" "$ver" "$bin" &
		pids+=($!)
	done
fi

failed=0
for pid in "${pids[@]}"; do
	wait "$pid" || failed=$((failed + 1))
done
if ((failed)); then
	echo "e2e-deps: $failed install(s) failed; cache: $cache" >&2
	exit 1
fi
