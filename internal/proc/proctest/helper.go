// Package proctest makes fake programs for tests on every OS: the test binary
// re-executed runs a Go function instead of its tests, so no test needs sh,
// cat or python3 (Windows has none of them). A package's TestMain calls
// Main; a test puts Command, ShellCommand or Install where the fake program
// goes. WaitGone waits for a process to end by event (a pidfd, a process
// handle), never by polling with sleeps.
package proctest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	// flagRun, as the first argument, makes the test binary run the ops
	// that follow (up to "--") instead of its tests.
	flagRun = "-hubtest.run"
	// flagRun64 is flagRun with the ops in one base64url JSON argument,
	// safe inside both sh and cmd.exe command lines.
	flagRun64 = "-hubtest.run64="
	// envFake names, for a fake installed under its own name on Unix (a
	// symlink carries no arguments), the ops it runs: a JSON array.
	envFake = "HUB_TEST_FAKE_"
)

// Helper is a package's own fake program: it gets the arguments after
// its name and returns the exit code.
type Helper func(args []string) int

// helpers are the package's own fakes, as Main got them.
var helpers map[string]Helper

// Main runs the fake program the test binary was started as, if any, and
// the package's tests otherwise. helpers are the package's own fakes, run
// by HelperCommand or the "helper:NAME" op.
func Main(m *testing.M, own map[string]Helper) {
	helpers = own
	if code, ok := dispatch(os.Args); ok {
		// Not os.Exit: under -race it waits a second at exit 0 (the race
		// runtime's atexit_sleep_ms), a second for every fake started.
		syscall.Exit(code)
	}
	os.Exit(m.Run())
}

func dispatch(argv []string) (int, bool) {
	if len(argv) > 1 {
		switch a := argv[1]; {
		case a == flagRun:
			return runOps(argv[2:]), true
		case strings.HasPrefix(a, flagRun64):
			raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(a, flagRun64))
			return runJSON(raw, err, argv[2:]), true
		}
	}
	name := strings.TrimSuffix(filepath.Base(argv[0]), ".exe")
	if v, ok := os.LookupEnv(envFake + envName(name)); ok {
		return runJSON([]byte(v), nil, argv[1:]), true
	}
	return 0, false
}

// runJSON runs the ops of the JSON array raw (unless err, from reading
// it) with args appended.
func runJSON(raw []byte, err error, args []string) int {
	var ops []string
	if err == nil {
		err = json.Unmarshal(raw, &ops)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "proctest: bad ops %q: %v\n", raw, err)
		return 125
	}
	return runOps(append(append(ops, "--"), args...))
}

func runHelper(name string, args []string) int {
	h, ok := helpers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "proctest: no helper %q\n", name)
		return 125
	}
	return h(args)
}

// Command is the argv of a fake program doing ops, in order; the caller
// may append arguments (the ones a program would get), which ops see.
//
// Ops: "out:TEXT" and "err:TEXT" write TEXT to stdout or stderr; "cat:FILE"
// copies FILE to stdout; "stdin" copies stdin to stdout; "stdin>:FILE"
// writes stdin to FILE; "stdin>>:FILE" appends stdin and a newline to FILE;
// "args>:FILE" writes the appended arguments, space-separated, to FILE;
// "touch:FILE" creates FILE; "exit:N" exits with N; "exitifarg:ARG:N" exits
// with N when ARG is among the appended arguments; "hang" blocks until
// killed; "pid:FILE" writes the fake's pid to FILE at once (written
// aside, then renamed); "child:FILE" starts a fake that hangs and writes its pid to FILE;
// "exists:FILE" exits 1 unless FILE exists; "has:FILE:TEXT" exits 1 unless
// FILE holds TEXT (a trailing newline aside); "exitifstdin:TEXT:N:MSG"
// reads stdin and, when it holds TEXT, writes MSG to stderr and exits N;
// "closeio" closes stdin and stdout (a writer to the fake gets a broken
// pipe, a reader the end, before the fake has exited); "helper:NAME" runs
// the package's own helper NAME (see Main) with the appended arguments
// and exits with its code. Without an exit op the program exits 0.
func Command(ops ...string) []string {
	return append([]string{self(), flagRun}, append(slices.Clone(ops), "--")...)
}

// HelperCommand is the argv of the package's own helper name (see Main).
func HelperCommand(name string, args ...string) []string {
	return append(Command("helper:"+name), args...)
}

// ShellCommand is a command line doing ops that sh -c and cmd.exe /s /c
// read alike: the quoted test binary and one argument of letters, digits,
// '-' and '_'.
func ShellCommand(ops ...string) string {
	raw, _ := json.Marshal(ops)
	return Quote(self()) + " " + flagRun64 + base64.RawURLEncoding.EncodeToString(raw)
}

// Quote quotes path for both sh and cmd.exe; it panics on a character
// either shell reads inside double quotes.
func Quote(path string) string {
	if strings.ContainsAny(path, "\"$`%!\n\r") || strings.Contains(path, `\\`) {
		panic(fmt.Sprintf("proctest: %q cannot be quoted for both sh and cmd.exe", path))
	}
	return `"` + path + `"`
}

// Install puts a fake program called name in dir doing ops (as Command)
// and returns its path: on Windows an npm-style name.cmd shim starting the
// test binary; elsewhere a symlink to the test binary, told what to do by
// the environment (set with t.Setenv, so the test cannot be parallel).
func Install(t testing.TB, dir, name string, ops ...string) string {
	t.Helper()
	p, env := Fake(t, dir, name, ops...)
	if k, v, ok := strings.Cut(env, "="); ok {
		t.Setenv(k, v)
	}
	return p
}

// Fake is Install for a test that gives its programs an environment of
// its own: it returns the KEY=VALUE the fake needs there ("" on Windows,
// where the shim carries the ops). A name ending in .cmd keeps it.
func Fake(t testing.TB, dir, name string, ops ...string) (path, env string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		p := filepath.Join(dir, strings.TrimSuffix(name, ".cmd")+".cmd")
		shim := "@ECHO off\r\n" + ShellCommand(ops...) + " %*\r\n"
		if err := os.WriteFile(p, []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
		return p, ""
	}
	p := filepath.Join(dir, name)
	_ = os.Remove(p) // installed again, it replaces the first, as the shim does
	if err := os.Symlink(self(), p); err != nil {
		t.Fatal(err)
	}
	v, _ := json.Marshal(ops)
	return p, envFake + envName(name) + "=" + string(v)
}

var notEnvName = regexp.MustCompile(`[^A-Za-z0-9]`)

func envName(name string) string { return notEnvName.ReplaceAllString(name, "_") }

func self() string {
	exe, err := os.Executable()
	if err != nil {
		panic(fmt.Sprintf("proctest: the test binary: %v", err))
	}
	return exe
}

func runOps(argv []string) int {
	ops, args := argv, []string(nil)
	if i := slices.Index(argv, "--"); i >= 0 {
		ops, args = argv[:i], argv[i+1:]
	}
	for _, op := range ops {
		verb, arg, _ := strings.Cut(op, ":")
		code, done, err := runOp(verb, arg, args)
		if err != nil {
			fmt.Fprintf(os.Stderr, "proctest: %s: %v\n", op, err)
			return 125
		}
		if done {
			return code
		}
	}
	return 0
}

func runOp(verb, arg string, args []string) (code int, done bool, err error) {
	switch verb {
	case "out":
		_, err = io.WriteString(os.Stdout, arg)
	case "err":
		_, err = io.WriteString(os.Stderr, arg)
	case "cat":
		var b []byte
		if b, err = os.ReadFile(arg); err == nil {
			_, err = os.Stdout.Write(b)
		}
	case "stdin":
		_, err = io.Copy(os.Stdout, os.Stdin)
	case "stdin>":
		var b []byte
		if b, err = io.ReadAll(os.Stdin); err == nil {
			err = os.WriteFile(arg, b, 0o644)
		}
	case "stdin>>": // one write, so fakes appending at once keep their lines whole
		var b []byte
		var f *os.File
		if b, err = io.ReadAll(os.Stdin); err == nil {
			if f, err = os.OpenFile(arg, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err == nil {
				_, err = f.Write(append(b, '\n'))
				err = errors.Join(err, f.Close())
			}
		}
	case "args>":
		err = os.WriteFile(arg, []byte(strings.Join(args, " ")+"\n"), 0o644)
	case "touch":
		err = os.WriteFile(arg, nil, 0o644)
	case "helper":
		return runHelper(arg, args), true, nil
	case "exit":
		code, err = strconv.Atoi(arg)
		return code, true, err
	case "exitifarg":
		want, n, _ := strings.Cut(arg, ":")
		if slices.Contains(args, want) {
			code, err = strconv.Atoi(n)
			return code, true, err
		}
	case "exists":
		if _, serr := os.Stat(arg); serr != nil {
			fmt.Fprintln(os.Stderr, serr)
			return 1, true, nil
		}
	case "has":
		file, want, _ := strings.Cut(arg, ":")
		if b, rerr := os.ReadFile(file); rerr != nil || strings.TrimSuffix(string(b), "\n") != want {
			fmt.Fprintf(os.Stderr, "%s: %q (%v), want %q\n", file, b, rerr, want)
			return 1, true, nil
		}
	case "exitifstdin":
		f := strings.SplitN(arg, ":", 3)
		var b []byte
		if b, err = io.ReadAll(os.Stdin); err == nil && len(f) == 3 && strings.Contains(string(b), f[0]) {
			fmt.Fprintln(os.Stderr, f[2])
			code, err = strconv.Atoi(f[1])
			return code, true, err
		}
	case "pid":
		if err = os.WriteFile(arg+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o644); err == nil {
			err = os.Rename(arg+".tmp", arg)
		}
	case "closeio":
		err = errors.Join(os.Stdin.Close(), os.Stdout.Close())
	case "hang":
		for {
			time.Sleep(time.Hour)
		}
	case "child":
		cmd := exec.Command(self(), flagRun, "hang")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr // holds the pipes, like a shell's background job
		if err = cmd.Start(); err == nil {
			err = os.WriteFile(arg, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
		}
	default:
		err = fmt.Errorf("unknown op")
	}
	return 0, false, err
}
