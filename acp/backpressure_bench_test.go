package acp

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/acp/schema"
)

// BenchmarkStalledEditor streams 20,000 updates of 4 KiB (80 MiB) while
// the editor reads nothing for 2 s, then reads them all; it prints the
// time and the process's peak RSS while stalled and in all (which includes
// the session's history of the whole 80 MiB answer). Run it alone, in its own process:
//
//	go test -run '^$' -bench StalledEditor -benchtime 1x ./acp/
func BenchmarkStalledEditor(b *testing.B) {
	for range b.N {
		a := newFlood(20000, 4<<10)
		e := newStallEditor(b, a)
		sid := e.session()
		start := time.Now()
		id := e.send("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("go")}})
		<-a.filled
		time.Sleep(2 * time.Second) // the editor stops reading
		stalled := procStatusMB("VmHWM:")
		got := 0
		e.readUntil(id, func(string) { got++ })
		fmt.Printf("%d updates in %v (2 s stalled): peak RSS %.1f MB while stalled, %.1f MB in all\n", got, time.Since(start).Round(time.Millisecond), stalled, peakRSSMB())
	}
}

// peakRSSMB is this process's peak resident set (Linux VmHWM), 0 elsewhere.
func peakRSSMB() float64 {
	return procStatusMB("VmHWM:")
}

func procStatusMB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
