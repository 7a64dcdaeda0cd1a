# hub — build, test, e2e, bench, lint.
GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
# The source date (the last commit's) stamps builds and every file of a release.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r $(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(BUILD_DATE)
PREFIX    ?= $(HOME)/.local
DIST      ?= dist
BIN       := bin/hub
E2E_CACHE ?= $(CURDIR)/.cache/e2e
SHELL     := /bin/bash
export CGO_ENABLED ?= 0
# go.mod needs go1.27.3 (the patched release; go1.26.8 has reachable
# standard-library vulnerabilities). A machine starts on its own Go and
# ignores go.mod's version line, so every recipe asks for this one; the go
# command fetches it from the module proxy once.
export GOTOOLCHAIN := go1.27.3

.PHONY: all build install dist test test-deps test-windows unit race e2e e2e-deps bench lint cross vulncheck staticcheck fuzz clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/hub

# Installs $(PREFIX)/bin/hub (default ~/.local/bin) and says so when that
# directory is not on PATH, with the line to add.
install:
	@GO='$(GO)' LDFLAGS='$(LDFLAGS)' bash scripts/install.sh '$(PREFIX)'

# Release: six static archives, checksums.txt, the ACP registry entry and the
# npm packages under $(DIST), reproducible from the commit (make dist VERSION=1.2.3).
dist:
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(GO) run ./scripts/dist -version '$(VERSION)' -commit '$(COMMIT)' -out '$(DIST)'

# Unit and conformance tests: network-free, deterministic, with the race detector.
test: lint test-deps
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 15m ./...

# What the tests use beyond Go: bubblewrap on Linux (the native loop's
# sandbox), installed with apt-get when missing and root or sudo allows.
test-deps:
	@bash scripts/test-deps.sh

lint: cross vulncheck staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# `go run tool@version` asks the proxy for the tool's latest version (for a
# deprecation notice) even when the pinned one is cached, so pinned tools run
# with the module cache as the first proxy: offline once fetched.
GO_RUN_CACHED = GOPROXY="file://$$($(GO) env GOMODCACHE)/cache/download,$$($(GO) env GOPROXY)" $(GO) run

# govulncheck against an offline copy of the Go vulnerability database: built
# once from the golang.org/x/vulndb module (fetched through the module proxy)
# into the user's cache directory, keyed by the version below; later runs need
# no network. Bump VULNDB_VERSION to pick up new advisories.
VULNDB_VERSION      ?= v0.0.0-20261105234957-e22db6528018
GOVULNCHECK_VERSION ?= v1.9.0
vulncheck:
	@db=$$($(GO) run ./scripts/vulndb -version $(VULNDB_VERSION)) && \
	  $(GO_RUN_CACHED) golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION) -db "file://$$db" ./...

# staticcheck, pinned, for each OS's files (GOOS reaches the checker
# through -exec; the checker itself is built for this machine).
STATICCHECK_VERSION ?= v0.8.2
staticcheck:
	@for os in linux darwin windows; do \
	  echo "== staticcheck $$os"; \
	  $(GO_RUN_CACHED) -exec "env GOOS=$$os" honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./... || exit 1; \
	done

# Every package's tests as Windows executables under Wine 10 (a Debian trixie
# root made once with mmdebstrap, cached in /var/cache/hub/wine-root); needs root.
test-windows:
	@bash scripts/test-windows.sh

# Only Linux runs the tests here; lint vets it, and cross vets the other
# release targets (see scripts/cross.sh for why arm64 is mostly skipped).
cross:
	@GO='$(GO)' bash scripts/cross.sh

# End-to-end: real agent CLIs (pinned, cached under .cache/e2e) against local mock LLM servers,
# and the official ACP TypeScript SDK as the client.
e2e: build e2e-deps
	@echo "== go e2e (real CLIs, replay agent)"
	HUB_BIN=$(CURDIR)/$(BIN) HUB_E2E_CACHE=$(E2E_CACHE) $(GO) test -tags e2e -count=1 -timeout 40m ./e2e/...
	@echo "== node e2e (official ACP SDK client)"
	HUB_BIN=$(CURDIR)/$(BIN) HUB_E2E_CACHE=$(E2E_CACHE) node --test --test-reporter=spec e2e/node/*.test.mjs

e2e-deps:
	@bash scripts/e2e-deps.sh $(E2E_CACHE)

# Benchmarks print figures only (no timing asserts). ./bench/ measures the built
# binary: spawn -> initialize latency and RSS after session/new (HUB_BIN). The
# first-prompt table runs hub and the dedicated ACP adapters (installed into the
# e2e cache) on the real CLIs against the mock LLMs.
bench: build
	HUB_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench . -benchmem -count=1 ./...
	@HUB_E2E_BENCH=1 bash scripts/e2e-deps.sh $(E2E_CACHE)
	HUB_BENCH_AGENTS=1 HUB_BIN=$(CURDIR)/$(BIN) HUB_E2E_CACHE=$(E2E_CACHE) $(GO) test -tags e2e -count=1 -run 'TestBench_(FirstPrompt|Delegation|SwitchAgent)' -v ./e2e/ | grep -E '^(\||first prompt|first text|hops|switch agent)'

fuzz:
	@bash scripts/fuzz.sh 20s

clean:
	rm -rf bin .cache dist
