package codex

import (
	"testing"

	"github.com/hubdev/hub/internal/fixture"
)

func BenchmarkCodex(b *testing.B) { fixture.Bench(b, DecodeCodex, false, "testdata/appserver-*") }
func BenchmarkCodexSmallLines(b *testing.B) {
	fixture.Bench(b, DecodeCodex, true, "testdata/appserver-*")
}
func BenchmarkCodexExec(b *testing.B) { fixture.Bench(b, DecodeCodexExec, false, "testdata/exec-*") }
