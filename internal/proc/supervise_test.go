//go:build linux

package proc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// helperEnv makes the test binary act as a hub that starts one agent.
const helperEnv = "HUB_PROC_TEST_HUB"

// TestHelperHub is not a test: run by TestSupervisor_HubSIGKILLLeavesNoGroup
// as the "hub" process, it starts an agent with a grandchild, prints the
// pids and waits to be killed.
func TestHelperHub(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("helper process")
	}
	p, err := Start(context.Background(), Spec{Path: "sh", Args: []string{"-c", `sleep 600 & echo $$ $!; wait`}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	line, _ := bufio.NewReader(p.Stdout).ReadString('\n')
	fmt.Printf("%d %s", p.Pid(), line)
	select {}
}

func TestSupervisor_HubSIGKILLLeavesNoGroup(t *testing.T) {
	hub := exec.Command(os.Args[0], "-test.run=^TestHelperHub$")
	hub.Env = append(os.Environ(), helperEnv+"=1")
	out, err := hub.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hub.Process.Kill(); _ = hub.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper hub: %v", err)
	}
	var pgid, agent, grandchild int
	if _, err := fmt.Sscan(line, &pgid, &agent, &grandchild); err != nil {
		t.Fatalf("helper hub said %q: %v", line, err)
	}
	if err := hub.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = hub.Wait()
	for _, pid := range []int{pgid, agent, grandchild} {
		proctest.WaitGone(t, pid)
	}
	if left := liveInGroup(t, pgid); len(left) > 0 {
		t.Fatalf("processes of group %d survived hub: %v", pgid, left)
	}
}

// liveInGroup lists the pids in group pgid that are not zombies.
func liveInGroup(t *testing.T, pgid int) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var left []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(f, "/proc/"), "/stat"))
		left = append(left, pid)
	}
	return left
}

func TestSupervisor_RelaysHowTheAgentEnded(t *testing.T) {
	tests := []struct {
		name   string
		script string
		code   int
		signal syscall.Signal
	}{
		{"exit code", `exit 7`, 7, 0},
		{"killed by a signal", `kill -TERM $$`, -1, syscall.SIGTERM},
		{"success", `true`, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startShell(t, context.Background(), tt.script, time.Second)
			_ = p.Wait()
			if got := p.ExitCode(); got != tt.code {
				t.Fatalf("exit code %d, want %d", got, tt.code)
			}
			if p.status.signal != tt.signal {
				t.Fatalf("killed by %v, want %v", p.status.signal, tt.signal)
			}
		})
	}
}

func TestSupervisor_AgentIsChildOfSupervisorInItsGroup(t *testing.T) {
	p := startShell(t, context.Background(), `echo $$; cat >/dev/null`, time.Second)
	agent := readGrandchild(t, p)
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", agent))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if fields[1] != strconv.Itoa(p.Pid()) || fields[2] != strconv.Itoa(p.Pid()) {
		t.Fatalf("agent ppid %s pgrp %s, want both %d (the supervisor)", fields[1], fields[2], p.Pid())
	}
	// stdin EOF reaches the agent through the supervisor.
	_ = p.Stdin.Close()
	if err := p.Wait(); err != nil {
		t.Fatalf("agent did not end on stdin EOF: %v", err)
	}
}

// A signal sent to the agent's group (any one, not only those hub sends;
// Go's runtime ends a program on ABRT, SYS or TRAP) is the agent's
// business: the supervisor outlives it, so it is still there to kill the
// group when the agent ends.
func TestSupervisor_OutlivesSignalsToItsGroup(t *testing.T) {
	for _, sig := range []string{"TERM", "HUP", "INT", "QUIT", "PIPE", "ALRM", "ABRT", "SYS", "TRAP", "STKFLT", "USR1", "USR2", "XCPU", "BUS", "FPE", "SEGV", "PROF", "TSTP", "TTIN", "TTOU", "VTALRM", "IO"} {
		t.Run(sig, func(t *testing.T) {
			p := startShell(t, context.Background(), `trap "" `+sig+`; kill -`+sig+` 0; echo $$; read x; exit 3`, time.Second)
			readGrandchild(t, p)
			_ = p.Stdin.Close()
			_ = p.Wait()
			if p.ExitCode() != 3 {
				t.Fatalf("the agent ended with code %d (signal %q), want its own exit 3", p.ExitCode(), p.ExitSignal())
			}
		})
	}
}

// startShell starts sh -c script: these Linux-only tests need its signal
// and job grammar.
func startShell(t *testing.T, ctx context.Context, script string, grace time.Duration) *Process {
	t.Helper()
	return startFake(t, ctx, grace, []string{"sh", "-c", script})
}
