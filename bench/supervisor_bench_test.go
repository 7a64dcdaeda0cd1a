//go:build unix

package bench

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSupervisorStart times what hub's agent supervisor adds to an
// agent's start, with the built binary as the supervisor (as
// internal/proc runs it: argv[0] hub-supervise, the watch, status and
// result pipes on fds 3-5, a process group of its own): spawn to the
// supervisor's word that the agent runs, against a plain exec of the same
// program (target: at most 3 ms more).
func BenchmarkSupervisorStart(b *testing.B) {
	bin := hubBin(b)
	agent, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true(1) to start")
	}
	var supervised, plain []time.Duration
	for b.Loop() {
		supervised = append(supervised, superviseOnce(b, bin, agent))
		start := time.Now()
		cmd := exec.Command(agent)
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		plain = append(plain, time.Since(start))
		_ = cmd.Wait()
	}
	p50 := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	b.ReportMetric(ms(p50(supervised)), "supervised-p50-ms")
	b.ReportMetric(ms(p50(plain)), "plain-p50-ms")
}

// superviseOnce starts agent under bin's supervisor and returns the time
// until the supervisor closed its status pipe (the agent was started).
func superviseOnce(b *testing.B, bin, agent string) time.Duration {
	var ends [3][2]*os.File // watch, status, result: read and write ends
	for i := range ends {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		ends[i] = [2]*os.File{r, w}
	}
	cmd := exec.Command(bin)
	cmd.Args = []string{"hub-supervise", agent}
	cmd.ExtraFiles = []*os.File{ends[0][0], ends[1][1], ends[2][1]}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	if msg, _ := io.ReadAll(ends[1][0]); len(msg) > 0 {
		b.Fatalf("supervisor: %s", msg)
	}
	took := time.Since(start)
	_, _ = io.ReadAll(ends[2][0]) // the agent's status: the group is gone
	_ = cmd.Wait()
	for _, f := range []*os.File{ends[0][1], ends[1][0], ends[2][0]} {
		_ = f.Close()
	}
	return took
}
