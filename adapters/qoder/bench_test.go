package qoder

import (
	"testing"

	"github.com/hubdev/hub/internal/fixture"
)

func BenchmarkQoder(b *testing.B)           { fixture.Bench(b, DecodeQoder, false, "testdata/*") }
func BenchmarkQoderSmallLines(b *testing.B) { fixture.Bench(b, DecodeQoder, true, "testdata/*") }
