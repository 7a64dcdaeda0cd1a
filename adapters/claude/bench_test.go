package claude

import (
	"testing"

	"github.com/hubdev/hub/internal/fixture"
)

func BenchmarkClaude(b *testing.B)           { fixture.Bench(b, DecodeClaude, false, "testdata/*") }
func BenchmarkClaudeSmallLines(b *testing.B) { fixture.Bench(b, DecodeClaude, true, "testdata/*") }
