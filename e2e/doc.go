//go:build e2e

// Package e2e holds hub's end-to-end tests. They run the built hub binary
// (HUB_BIN, or one built on the fly) as an ACP agent over stdio and drive it
// with a raw JSON-RPC client (harness_test.go), against the replay adapter
// and the pinned agent CLIs that scripts/e2e-deps.sh installs into the cache
// (HUB_E2E_CACHE, default .cache/e2e). Run them with `make e2e`; tests of a
// CLI missing from the cache are skipped. They are Unix-only (process groups,
// signals); the Windows tests are in e2e/windows.
package e2e
