package pi

import (
	"testing"

	"github.com/hubdev/hub/internal/fixture"
)

func BenchmarkPi(b *testing.B)           { fixture.Bench(b, DecodePi, false, "testdata/*") }
func BenchmarkPiSmallLines(b *testing.B) { fixture.Bench(b, DecodePi, true, "testdata/*") }
