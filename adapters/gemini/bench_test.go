package gemini

import (
	"testing"

	fx "github.com/hubdev/hub/internal/fixture"
)

func BenchmarkGemini(b *testing.B) { fx.Bench(b, DecodeGemini, false, "testdata/streamjson-*") }
func BenchmarkGeminiSmallLines(b *testing.B) {
	fx.Bench(b, DecodeGemini, true, "testdata/streamjson-*")
}
