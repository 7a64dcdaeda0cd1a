//go:build linux

package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// orphanRole makes the test binary play one part of
// TestSupervisor_HubDeathUnderLoadLeavesNoGrandchild: "hub" starts a
// supervised agent, "agent" starts a grandchild and exits on stdin EOF,
// "grandchild" blocks on a pipe read forever, "spin" burns CPU.
const orphanRole = "HUB_PROC_TEST_ORPHAN_ROLE"

// TestHelperOrphan is not a test: it is the re-executed test binary.
func TestHelperOrphan(t *testing.T) {
	switch os.Getenv(orphanRole) {
	case "hub":
		orphanHub()
	case "agent":
		orphanAgent()
	case "detaching":
		detachingAgent()
	case "daemon":
		daemon()
	case "exit7":
		exit7Agent()
	case "orphaner":
		orphaner()
	case "drain":
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "grandchild":
		r, w, _ := os.Pipe()
		_, _ = r.Read(make([]byte, 1))
		runtime.KeepAlive(w)
	case "spin":
		for i := 1; i < runtime.NumCPU(); i++ {
			go spin()
		}
		spin()
	default:
		t.Skip("helper process")
	}
	syscall.Exit(0)
}

func spin() {
	for n := 0; ; n++ {
		_ = n
	}
}

func orphanCmd(role string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOrphan$")
	cmd.Env = append(os.Environ(), orphanRole+"="+role)
	return cmd
}

// orphanHub starts the agent, prints "supervisor agent grandchild" and
// waits to be killed.
func orphanHub() {
	cmd := orphanCmd("agent")
	p, err := Start(context.Background(), Spec{Path: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env})
	if err != nil {
		fmt.Println("error", err)
		syscall.Exit(1)
	}
	line, _ := bufio.NewReader(p.Stdout).ReadString('\n')
	fmt.Printf("%d %s", p.Pid(), line)
	select {}
}

// orphanAgent starts the grandchild, prints both pids and exits as soon as
// its stdin ends, as an agent does when hub dies.
func orphanAgent() {
	gc := orphanCmd("grandchild")
	if err := gc.Start(); err != nil {
		fmt.Println("error", err)
		syscall.Exit(1)
	}
	fmt.Printf("%d %d\n", os.Getpid(), gc.Process.Pid)
	_, _ = io.Copy(io.Discard, os.Stdin)
	syscall.Exit(0) // at once, as a real agent: no race-detector exit delay
}

// detachingAgent starts a grandchild in a session of its own (node's
// spawn with detached: true, a daemon), as far from the agent's process
// group as it can get, which starts a child in yet another session; it
// prints the three pids and exits when told on stdin.
func detachingAgent() {
	gc := orphanCmd("daemon")
	gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := gc.StdoutPipe()
	if err == nil {
		err = gc.Start()
	}
	if err != nil {
		fmt.Println("error", err)
		syscall.Exit(1)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	fmt.Printf("%d %d %s", os.Getpid(), gc.Process.Pid, line)
	_, _ = io.Copy(io.Discard, os.Stdin)
	syscall.Exit(0)
}

// daemon starts a grandchild in a session of its own, prints its pid and
// blocks, as a daemon that starts its workers detached.
func daemon() {
	gc := orphanCmd("grandchild")
	gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := gc.Start(); err != nil {
		syscall.Exit(1)
	}
	fmt.Println(gc.Process.Pid)
	select {}
}

// exit7Agent leaves orphans that the supervisor adopts and that exit
// with it (they read a pipe only it holds), then exits with status 7.
func exit7Agent() {
	r, w, err := os.Pipe()
	for i := 0; i < 8 && err == nil; i++ {
		cmd := orphanCmd("orphaner")
		cmd.Stdin = r
		err = cmd.Run()
	}
	if err != nil {
		syscall.Exit(1)
	}
	_ = r.Close()
	runtime.KeepAlive(w)
	syscall.Exit(7)
}

// orphaner starts a detached "drain" of its stdin and exits, leaving it
// to the nearest subreaper.
func orphaner() {
	cmd := orphanCmd("drain")
	cmd.Stdin = os.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() != nil {
		syscall.Exit(1)
	}
}

// The supervisor reaps the orphans it adopted while it waits for the
// agent: one that exits with the agent must not take the agent's status.
func TestSupervisor_AgentStatusSurvivesOrphansExitingWithIt(t *testing.T) {
	defer startLoad(t)()
	cmd := orphanCmd("exit7")
	p, err := Start(context.Background(), Spec{Path: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Wait()
	if got := p.ExitCode(); got != 7 {
		t.Errorf("exit code = %d, want the agent's 7", got)
	}
}

// A grandchild the agent started in a session of its own, outside the
// process group, ends with the agent: when the agent exits and when hub
// stops it.
func TestSupervisor_DetachedGrandchildEndsWithTheAgent(t *testing.T) {
	for _, how := range []string{"exits", "stopped"} {
		t.Run(how, func(t *testing.T) {
			cmd := orphanCmd("detaching")
			p, err := Start(context.Background(), Spec{Path: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env})
			if err != nil {
				t.Fatal(err)
			}
			var agent, grandchild, its int
			line, _ := bufio.NewReader(p.Stdout).ReadString('\n')
			if _, err := fmt.Sscan(line, &agent, &grandchild, &its); err != nil {
				t.Fatalf("agent said %q: %v", line, err)
			}
			var fds []int
			for _, pid := range []int{grandchild, its} {
				fd, err := unix.PidfdOpen(pid, 0)
				if err != nil {
					t.Fatalf("pidfd_open %d: %v", pid, err)
				}
				defer unix.Close(fd)
				fds = append(fds, fd)
			}
			if how == "exits" {
				_ = p.Stdin.Close()
				_ = p.Wait()
			} else {
				_ = p.Stop()
			}
			for i, fd := range fds {
				if !pidfdExits(fd) {
					_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
					t.Errorf("the detached process %d (of %d) outlived its agent", i+1, len(fds))
				}
			}
		})
	}
}

// TestSupervisor_HubDeathUnderLoadLeavesNoGrandchild kills hub while the
// machine is busy: the agent sees stdin EOF and exits at the same moment
// the supervisor sees hub's pipe close, and whichever the supervisor
// notices first, the agent's grandchild must not survive.
func TestSupervisor_HubDeathUnderLoadLeavesNoGrandchild(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 200 processes under CPU load")
	}
	stop := startLoad(t)
	defer stop()
	const runs = 50
	survived := 0
	for i := 0; i < runs; i++ {
		if !hubDeathKillsGrandchild(t) {
			survived++
		}
	}
	if survived > 0 {
		t.Errorf("the grandchild survived hub in %d of %d runs", survived, runs)
	}
}

// hubDeathKillsGrandchild runs one hub/agent/grandchild tree, SIGKILLs hub
// and reports whether the grandchild ended (it is killed if it did not).
func hubDeathKillsGrandchild(t *testing.T) bool {
	t.Helper()
	hub := orphanCmd("hub")
	out, err := hub.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hub.Process.Kill(); _ = hub.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper hub: %v", err)
	}
	var sup, agent, grandchild int
	if _, err := fmt.Sscan(line, &sup, &agent, &grandchild); err != nil {
		t.Fatalf("helper hub said %q: %v", line, err)
	}
	gc, err := unix.PidfdOpen(grandchild, 0)
	if err != nil {
		t.Fatalf("pidfd_open grandchild %d: %v", grandchild, err)
	}
	defer unix.Close(gc)
	if err := hub.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = hub.Wait()
	if pidfdExits(gc) {
		return true
	}
	_ = unix.PidfdSendSignal(gc, unix.SIGKILL, nil, 0)
	return false
}

// pidfdExits waits for the process behind fd to exit; the 10 s limit is
// only there to fail rather than hang when it never does.
func pidfdExits(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 10_000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}

// startLoad keeps every CPU busy with spinning processes and goroutines
// until the returned stop is called.
func startLoad(t *testing.T) (stop func()) {
	t.Helper()
	var spinners []*exec.Cmd
	for i := 0; i < 2; i++ {
		cmd := orphanCmd("spin")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		spinners = append(spinners, cmd)
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < runtime.NumCPU(); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() { // spins: the load this test runs under
			}
		}()
	}
	return func() {
		done.Store(true)
		wg.Wait()
		for _, cmd := range spinners {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
}
