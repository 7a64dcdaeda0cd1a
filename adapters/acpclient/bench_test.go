package acpclient

import (
	"testing"

	"github.com/hubdev/hub/internal/fixture"
)

func BenchmarkACP(b *testing.B) {
	fixture.Bench(b, DecodeACP, false, "../gemini/testdata/acp-*", "testdata/*")
}
func BenchmarkACPSmallLines(b *testing.B) {
	fixture.Bench(b, DecodeACP, true, "../gemini/testdata/acp-*", "testdata/*")
}
