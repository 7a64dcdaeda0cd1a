package streamparse

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
)

// Every decoder is measured over all of its recorded fixtures (the cases
// under testdata/<agent>/ in its wire format), and again without the
// long-line cases, where per-record cost rather than string scanning shows.

func BenchmarkClaude(b *testing.B)           { benchDecode(b, DecodeClaude, "claude/*") }
func BenchmarkClaudeSmallLines(b *testing.B) { benchDecodeSmall(b, DecodeClaude, "claude/*") }
func BenchmarkCodex(b *testing.B)            { benchDecode(b, DecodeCodex, "codex/appserver-*") }
func BenchmarkCodexSmallLines(b *testing.B)  { benchDecodeSmall(b, DecodeCodex, "codex/appserver-*") }
func BenchmarkCodexExec(b *testing.B)        { benchDecode(b, DecodeCodexExec, "codex/exec-*") }
func BenchmarkACP(b *testing.B)              { benchDecode(b, DecodeACP, "gemini/acp-*", "acpagent/*") }
func BenchmarkACPSmallLines(b *testing.B) {
	benchDecodeSmall(b, DecodeACP, "gemini/acp-*", "acpagent/*")
}
func BenchmarkGemini(b *testing.B) { benchDecode(b, DecodeGemini, "gemini/streamjson-*") }
func BenchmarkGeminiSmallLines(b *testing.B) {
	benchDecodeSmall(b, DecodeGemini, "gemini/streamjson-*")
}
func BenchmarkQoder(b *testing.B)           { benchDecode(b, DecodeQoder, "qodercli/*") }
func BenchmarkQoderSmallLines(b *testing.B) { benchDecodeSmall(b, DecodeQoder, "qodercli/*") }
func BenchmarkPi(b *testing.B)              { benchDecode(b, DecodePi, "pi/*") }
func BenchmarkPiSmallLines(b *testing.B)    { benchDecodeSmall(b, DecodePi, "pi/*") }

func benchDecode(b *testing.B, decode func([]byte) []adapters.Event, globs ...string) {
	benchRun(b, benchCorpus(b, false, globs), decode)
}

func benchDecodeSmall(b *testing.B, decode func([]byte) []adapters.Event, globs ...string) {
	benchRun(b, benchCorpus(b, true, globs), decode)
}

// benchCorpus concatenates the stream.jsonl of the fixture dirs matching
// globs (under testdata), without the long-line/long-write cases if small.
func benchCorpus(b *testing.B, small bool, globs []string) []byte {
	var data []byte
	for _, g := range globs {
		paths, _ := filepath.Glob(filepath.Join("..", "testdata", g, "stream.jsonl"))
		for _, p := range paths {
			if small && strings.Contains(filepath.Base(filepath.Dir(p)), "long-") {
				continue
			}
			d, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			data = append(data, d...)
		}
	}
	if len(data) == 0 {
		b.Fatalf("no fixtures match %v", globs)
	}
	return data
}

// benchRun reports MB/s and events/s over wall time, and cpu-MB/s over
// the process's CPU time, which a loaded machine disturbs far less.
func benchRun(b *testing.B, data []byte, decode func([]byte) []adapters.Event) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	events := 0
	cpu0, start := benchCPU(), time.Now()
	for b.Loop() {
		events += len(decode(data))
	}
	wall, cpu := time.Since(start).Seconds(), benchCPU()-cpu0
	b.ReportMetric(float64(events)/wall, "events/s")
	if cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu/1e6, "cpu-MB/s")
	}
}

func benchCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
