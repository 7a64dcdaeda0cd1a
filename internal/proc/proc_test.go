package proc

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestMain(m *testing.M) {
	proctest.Main(m, map[string]proctest.Helper{"parent": parent, "stubborn": stubborn})
}

// parent is an agent with a child (a fake that hangs) sharing its stdout:
// it prints the child's pid, then waits for the child; with "leave" it
// exits at once; with "stubborn" both ignore stop signals.
func parent(args []string) int {
	argv := proctest.Command("hang")
	if slices.Contains(args, "stubborn") {
		signal.Ignore(os.Interrupt, syscall.SIGTERM)
		argv = proctest.HelperCommand("stubborn")
	}
	child := exec.Command(argv[0], argv[1:]...)
	child.Stdout = os.Stdout
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(child.Process.Pid)
	if slices.Contains(args, "leave") {
		return 0
	}
	_ = child.Wait()
	return 0
}

// stubborn ignores stop signals (SIGTERM; on Windows CTRL_BREAK) and hangs;
// with "ready" it first says so on stdout. It catches them: on Windows a
// Go program that ignores CTRL_BREAK still exits on it.
func stubborn(args []string) int {
	signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGTERM)
	if slices.Contains(args, "ready") {
		fmt.Println("ready")
	}
	select {}
}

func startFake(t *testing.T, ctx context.Context, grace time.Duration, argv []string) *Process {
	t.Helper()
	p, err := Start(ctx, Spec{Path: argv[0], Args: argv[1:], Grace: grace})
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
	p := startFake(t, context.Background(), 50*time.Millisecond, proctest.HelperCommand("parent", "stubborn"))
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
	p := startFake(t, ctx, 50*time.Millisecond, proctest.HelperCommand("parent"))
	child := readGrandchild(t, p)
	cancel()
	<-p.Done()
	proctest.WaitGone(t, child)
}

func TestWait_LeaderExitKillsStragglers(t *testing.T) {
	p := startFake(t, context.Background(), time.Second, proctest.HelperCommand("parent", "leave"))
	child := readGrandchild(t, p)
	_ = p.Wait()
	proctest.WaitGone(t, child)
}

func TestWait_KeepsStderrTailAndExitCode(t *testing.T) {
	p := startFake(t, context.Background(), time.Second, proctest.Command("err:one\n", "err:bad key\n", "exit:3"))
	if err := p.Wait(); err == nil || p.StderrTail(3) != "one | bad key" {
		t.Fatalf("got %v, stderr %q", err, p.StderrTail(3))
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

// The stderr tail hub reports is plain text: gemini writes its refusal in
// red (ESC[31m … ESC[0m), which reached the editor, the jsonl and hub run's
// error line as escape codes.
func TestRing_TailLinesArePlainText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"colour", "\x1b[31mGemini CLI is not running in a trusted directory.\x1b[0m\n", "Gemini CLI is not running in a trusted directory."},
		{"bold and 256 colours", "\x1b[1;38;5;196merror:\x1b[0m bad\n", "error: bad"},
		{"a line of codes only", "first\n\x1b[2K\x1b[1G\nlast\n", "first | last"},
		{"a title (OSC)", "\x1b]0;gemini\x07ready\n", "ready"},
		{"plain text untouched", "a [31m b\n", "a [31m b"},
		{"a progress line (\\r) shows its last state", "Downloading 10%\rDownloading 90%\rDone.\n", "Done."},
		{"a CRLF line", "one\r\ntwo\r\n", "one | two"},
		{"cursor save, charset and keypad escapes", "\x1b7\x1b(Bready\x1b8\x1b=\n", "ready"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRing(1 << 10)
			_, _ = r.Write([]byte(tc.in))
			if got := r.TailLines(3); got != tc.want {
				t.Fatalf("TailLines = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRing_CutsAtUTF8BoundaryAndSaysTruncated(t *testing.T) {
	cases := []struct {
		name, in, want string
		truncated      bool
	}{
		{"fits", "abc", "abc", false},
		{"ascii tail", "abcdefg", "cdefg", true},
		{"no half rune", "ab€€", "€", true}, // € is 3 bytes; the 5-byte tail starts inside the first
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRing(5)
			_, _ = r.Write([]byte(tc.in))
			if got, truncated := r.Snapshot(); got != tc.want || truncated != tc.truncated {
				t.Fatalf("Snapshot() = %q, %v; want %q, %v", got, truncated, tc.want, tc.truncated)
			}
		})
	}
}

func TestStopAll_LeavesNoLiveProcesses(t *testing.T) {
	for i := 0; i < 3; i++ {
		startFake(t, context.Background(), time.Second, proctest.Command("hang"))
	}
	StopAll(50 * time.Millisecond)
	if n := Live(); n != 0 {
		t.Fatalf("%d live", n)
	}
}

// StopUnder stops the processes started in a directory or below it, and
// keeps Start out of it until lifted; a sibling whose name it begins and
// hub's own directory are not under it.
func TestStopUnder_StopsAndFencesOnlyItsDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a")
	tests := []struct {
		name, dir string
		under     bool
	}{
		{"the directory", dir, true},
		{"below it", filepath.Join(dir, "sub"), true},
		{"a sibling it prefixes", filepath.Join(root, "ab"), false},
		{"hub's directory", "", false},
	}
	argv := proctest.Command("hang")
	start := func(d string) (*Process, error) {
		return Start(context.Background(), Spec{Path: argv[0], Args: argv[1:], Dir: d, Grace: 10 * time.Millisecond})
	}
	var ps []*Process
	for _, tc := range tests {
		if err := os.MkdirAll(cmp.Or(tc.dir, root), 0o755); err != nil {
			t.Fatal(err)
		}
		p, err := start(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.StopWithin(10 * time.Millisecond) })
		ps = append(ps, p)
	}
	lift := StopUnder(dir, 10*time.Millisecond)
	for i, tc := range tests {
		if ps[i].Exited() != tc.under {
			t.Errorf("%s: stopped %v, want %v", tc.name, ps[i].Exited(), tc.under)
		}
		p, err := start(tc.dir)
		if errors.Is(err, ErrStopping) != tc.under {
			t.Errorf("%s: a start while fenced: %v, want refused %v", tc.name, err, tc.under)
		}
		if err == nil {
			_ = p.StopWithin(10 * time.Millisecond)
		}
	}
	lift()
	p, err := start(dir)
	if err != nil {
		t.Fatalf("a start once lifted: %v", err)
	}
	_ = p.StopWithin(10 * time.Millisecond)
}

// A Start that returns before StopAll does is either refused or stopped by
// it, whatever the interleaving. StopAll cannot return before the Start:
// it waits for a stubborn process the test kills only once Start returned.
// The raced process ends when its stdin closes, a stop's first step, so no
// stop signal need reach it (none does under Wine without a console).
func TestStopAll_RacingStartIsStoppedOrRefused(t *testing.T) {
	argv := proctest.Command("stdin")
	for range 5 {
		stubborn := startFake(t, context.Background(), time.Minute, proctest.HelperCommand("stubborn", "ready"))
		if _, err := bufio.NewReader(stubborn.Stdout).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			StopAll(time.Minute)
		}()
		p, err := Start(context.Background(), Spec{Path: argv[0], Args: argv[1:], Grace: 10 * time.Millisecond})
		if stubborn.Exited() {
			t.Fatal("the stubborn process ended on its stop signal")
		}
		_ = stubborn.Signal(syscall.SIGKILL)
		<-stopped
		switch {
		case errors.Is(err, ErrStopping):
		case err != nil:
			t.Fatal(err)
		case !p.Exited():
			_ = p.StopWithin(10 * time.Millisecond)
			t.Fatalf("process %d, started as StopAll ran, is still running after it", p.Pid())
		}
	}
}
