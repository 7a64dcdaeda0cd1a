package proc

import (
	"bufio"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/proc/proctest"
)

func startShell(t *testing.T, ctx context.Context, script string, grace time.Duration) *Process {
	t.Helper()
	p, err := Start(ctx, Spec{Path: "sh", Args: []string{"-c", script}, Grace: grace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.StopWithin(10 * time.Millisecond) })
	return p
}

func readGrandchild(t *testing.T, p *Process) int {
	t.Helper()
	line, err := bufio.NewReader(p.Stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestStop_KillsWholeGroupAfterGrace(t *testing.T) {
	p := startShell(t, context.Background(), `trap "" TERM; sleep 60 & echo $!; wait`, 50*time.Millisecond)
	child := readGrandchild(t, p)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() {
		t.Fatal("leader not reaped")
	}
	proctest.WaitGone(t, child)
}

func TestStart_ContextCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := startShell(t, ctx, `sleep 60 & echo $!; wait`, 50*time.Millisecond)
	child := readGrandchild(t, p)
	cancel()
	<-p.Done()
	proctest.WaitGone(t, child)
}

func TestWait_LeaderExitKillsStragglers(t *testing.T) {
	p := startShell(t, context.Background(), `sleep 60 & echo $!`, time.Second)
	child := readGrandchild(t, p)
	_ = p.Wait()
	proctest.WaitGone(t, child)
}

func TestExitError_CarriesStderrTail(t *testing.T) {
	p := startShell(t, context.Background(), `echo one >&2; echo "bad key" >&2; exit 3`, time.Second)
	err := p.ExitError("agent")
	if err == nil || !strings.Contains(err.Error(), "one | bad key") {
		t.Fatalf("got %v", err)
	}
	if p.ExitCode() != 3 {
		t.Fatalf("exit code %d", p.ExitCode())
	}
}

func TestStart_MissingProgram(t *testing.T) {
	_, err := Start(context.Background(), Spec{Path: "definitely-not-a-hub-binary"})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v", err)
	}
}

func TestRing_KeepsTail(t *testing.T) {
	r := NewRing(8)
	_, _ = r.Write([]byte("hello "))
	_, _ = r.Write([]byte("world\n"))
	if got := r.String(); got != "o world\n" {
		t.Fatalf("got %q", got)
	}
	_, _ = r.Write([]byte("0123456789"))
	if got := r.String(); got != "23456789" {
		t.Fatalf("got %q", got)
	}
}

func TestStopAll_LeavesNoLiveProcesses(t *testing.T) {
	for i := 0; i < 3; i++ {
		startShell(t, context.Background(), `sleep 60`, time.Second)
	}
	StopAll(50 * time.Millisecond)
	if n := Live(); n != 0 {
		t.Fatalf("%d live", n)
	}
}
