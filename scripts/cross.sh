#!/usr/bin/env bash
# Vets (type-checks, tests included) every release target but linux/amd64,
# which make lint vets and make test runs. darwin and windows are vetted
# whole on amd64. On arm64 only the packages whose files differ from amd64
# are vetted: type-checking the rest again finds nothing new but costs a
# compile of the standard library and every dependency per target (about a
# CPU-minute each, cold). Dependencies' own arm64 code is compiled by make dist.
set -euo pipefail
GO=${GO:-go}
export CGO_ENABLED=0

for os in darwin windows; do
	echo "== vet $os/amd64"
	GOOS=$os GOARCH=amd64 $GO vet ./...
done

# Code behind build tags: the e2e tests (Unix-only, so on Windows only
# their package doc builds) and codex's fixture recorder.
for os in linux darwin windows; do
	echo "== vet $os/amd64, tags e2e and codexrecord"
	GOOS=$os GOARCH=amd64 $GO vet -tags e2e ./e2e/...
	GOOS=$os GOARCH=amd64 $GO vet -tags codexrecord ./adapters/codex
done

files='{{.ImportPath}} {{.GoFiles}} {{.SFiles}} {{.TestGoFiles}} {{.XTestGoFiles}}'
for os in linux darwin windows; do
	pkgs=$(comm -13 <(GOOS=$os GOARCH=amd64 $GO list -f "$files" ./... | sort) \
		<(GOOS=$os GOARCH=arm64 $GO list -f "$files" ./... | sort) | cut -d' ' -f1)
	if [ -z "$pkgs" ]; then
		echo "== $os/arm64: no package has architecture-specific files; amd64's vet covers it"
		continue
	fi
	echo "== vet $os/arm64:" $pkgs
	# shellcheck disable=SC2086 # one package per word
	GOOS=$os GOARCH=arm64 $GO vet $pkgs
done
