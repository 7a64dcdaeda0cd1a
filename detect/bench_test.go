package detect_test

import (
	"context"
	"testing"

	"github.com/hubdev/hub/adapters/all"
	"github.com/hubdev/hub/detect"
	"github.com/hubdev/hub/internal/proc"
)

func benchSetup(b *testing.B) *world {
	w := newWorld(b)
	w.agent("claude", "2.1.330 (Claude Code)")
	w.agent("codex", "codex-cli 0.169.0")
	w.agent("gemini", "0.61.0")
	w.agent("qodercli", "1.1.52")
	w.agent("pi", "0.73.1")
	w.file(".claude/.credentials.json", `{}`)
	return w
}

// BenchmarkDoctor_Warm is a cached report: key computation plus one file read.
func BenchmarkDoctor_Warm(b *testing.B) {
	o := benchSetup(b).options()
	if _, err := detect.Run(context.Background(), o); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := detect.Run(context.Background(), o)
		if err != nil || !r.Cached {
			b.Fatalf("not cached: %v", err)
		}
	}
}

// BenchmarkDoctor_Cold probes every agent (five fake CLIs) in parallel.
func BenchmarkDoctor_Cold(b *testing.B) {
	o := benchSetup(b).options()
	o.Refresh = true
	for i := 0; i < b.N; i++ {
		if _, err := detect.Run(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindPrograms is what finding hub's catalogue of ACP agents on
// this machine's PATH costs each hub start (none of them installed here).
func BenchmarkFindPrograms(b *testing.B) {
	var bins []string
	for _, s := range all.DoctorSpecs() {
		if s.Catalog {
			bins = append(bins, s.Bin)
		}
	}
	for i := 0; i < b.N; i++ {
		proc.FindProgramsUncached(bins)
	}
}
