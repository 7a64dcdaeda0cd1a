package proctest_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

func TestMain(m *testing.M) {
	proctest.Main(m, map[string]proctest.Helper{
		"upper": func(args []string) int { os.Stdout.WriteString(strings.ToUpper(strings.Join(args, " "))); return 4 },
	})
}

func run(t *testing.T, argv []string, stdin string) (stdout string, code int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// A fake does its ops in order and sees the arguments a caller appends.
func TestCommand_OpsSeeAppendedArguments(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("from file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := filepath.Join(dir, "args")
	tests := []struct {
		name  string
		argv  []string
		stdin string
		out   string
		code  int
	}{
		{"prints and exits", proctest.Command("out:a\n", "exit:3", "out:never"), "", "a\n", 3},
		{"cat and stdin", proctest.Command("cat:"+file, "stdin"), "typed", "from file\ntyped", 0},
		{"exit on an argument", append(proctest.Command("exitifarg:--acp:5", "out:no acp"), "x", "--acp"), "", "", 5},
		{"no such argument", append(proctest.Command("exitifarg:--acp:5", "out:no acp"), "--", "-p"), "", "no acp", 0},
		{"exit on stdin", proctest.Command("exitifstdin:secret:2:no"), "a secret", "", 2},
		{"file checks", proctest.Command("has:"+file+":from file", "exists:"+filepath.Join(dir, "nope")), "", "", 1},
		{"records arguments", append(proctest.Command("args>:"+args, "cat:"+args), "auth", "login"), "", "auth login\n", 0},
		{"own helper", proctest.HelperCommand("upper", "a", "b"), "", "A B", 4},
		{"own helper as an op", append(proctest.Command("out:x", "helper:upper", "out:never"), "a", "b"), "", "xA B", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if out, code := run(t, tc.argv, tc.stdin); out != tc.out || code != tc.code {
				t.Fatalf("stdout %q exit %d, want %q exit %d", out, code, tc.out, tc.code)
			}
		})
	}
}

// An installed fake runs under its own name, with the caller's arguments:
// a .cmd shim on Windows, a symlink elsewhere.
func TestInstall_RunsUnderItsName(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	p := proctest.Install(t, dir, "claude", "args>:"+args, "out:2.1.0\n", "exit:7")
	if out, code := run(t, []string{p, "auth", "login"}, ""); out != "2.1.0\n" || code != 7 {
		t.Fatalf("stdout %q exit %d", out, code)
	}
	if b, err := os.ReadFile(args); err != nil || string(b) != "auth login\n" {
		t.Fatalf("arguments %q (%v)", b, err)
	}
}

// "pid:FILE" names the fake's own process, the one its starter sees.
func TestCommand_PidIsTheFakes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	argv := proctest.Command("pid:" + file)
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != strconv.Itoa(cmd.Process.Pid) {
		t.Fatalf("pid file %q (%v), want %d", b, err, cmd.Process.Pid)
	}
}
