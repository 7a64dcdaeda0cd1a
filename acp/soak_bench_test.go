package acp

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/acp/schema"
)

// BenchmarkSoak_Prompts sends 5,000 prompts through one session (replay
// agent, session index on disk) and prints the time of each 500 and the
// RSS after them: a session must not slow down or grow as it ages.
//
//	go test -run '^$' -bench Soak -benchtime 1x ./acp/
func BenchmarkSoak_Prompts(b *testing.B) {
	const total, step = 5000, 500
	for range b.N {
		script := scriptFile(b, `{"event":{"type":"text","text":"an answer of a few words, like a real one"}}`)
		c := newClient(b, script, func(o *Options) { o.StateDir = b.TempDir() })
		c.init(schema.ClientCapabilities{})
		sid := c.newSession(b.TempDir())
		c.forget.Store(true)
		start := time.Now()
		var lines []string
		for i := 1; i <= total; i++ {
			c.prompt(sid, "prompt "+strconv.Itoa(i))
			if i%step == 0 {
				lines = append(lines, fmt.Sprintf("prompts %4d-%4d: %6.0f ms  rss %5.1f MB", i-step+1, i, float64(time.Since(start).Microseconds())/1000, rssMB()))
				start = time.Now()
			}
		}
		c.drain()
		fmt.Println(strings.Join(lines, "\n"))
	}
}

// rssMB is this process's resident set (Linux), else the Go runtime's.
func rssMB() float64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return kb / 1024
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.Sys) / (1 << 20)
}
