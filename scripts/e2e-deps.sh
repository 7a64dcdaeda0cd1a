#!/usr/bin/env bash
# Installs the pinned agent CLIs and the ACP TypeScript SDK into the e2e cache.
set -euo pipefail
cache=${1:?cache dir}
mkdir -p "$cache"
