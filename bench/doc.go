// Package bench holds benchmarks of the built hub binary: process spawn to
// the ACP initialize response, and resident memory once a session runs.
// They print figures (b.ReportMetric) and assert nothing about timing; run
// them with `make bench` or `go test -run '^$' -bench . ./bench/`. Set
// HUB_BIN to measure an existing binary instead of building one.
package bench
