package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
)

func newTestEnv(t *testing.T) *Env {
	t.Helper()
	e, err := NewEnv(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func runTool(t *testing.T, e *Env, name, args string) (Result, error) {
	t.Helper()
	p, err := e.Prepare(name, json.RawMessage(args))
	if err != nil {
		return Result{}, err
	}
	return p.Run(context.Background(), nil), nil
}

func TestResolve_EscapesRejected(t *testing.T) {
	e := newTestEnv(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(e.Root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(e.Root, "pw")); err != nil {
		t.Fatal(err)
	}
	escapes := []string{"../x", "/etc/passwd", outside + "/a", "a/../../x", "~/.ssh/id_rsa"}
	links := linksMade(filepath.Join(e.Root, "link")) // not under Wine (see skipWithoutLinks)
	if links {
		escapes = append(escapes, "link/new.txt", "link", "pw")
	}
	for _, p := range escapes {
		if _, err := e.Resolve(p); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("%q: got %v, want ErrOutsideWorkspace", p, err)
		}
	}
	for _, p := range []string{"a.txt", "sub/dir/new.go", e.Root + "/x", "."} {
		got, err := e.Resolve(p)
		if err != nil || !strings.HasPrefix(got, e.Root) {
			t.Errorf("%q: %q %v", p, got, err)
		}
	}
	if _, err := runTool(t, e, "write_file", `{"path":"link/evil","content":"x"}`); links && !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("write through symlink: %v", err)
	}
}

func TestReadFile_PagingBinaryAndDirs(t *testing.T) {
	e := newTestEnv(t)
	var lines []string
	for i := 1; i <= 50; i++ {
		lines = append(lines, "line"+string(rune('A'+i%26)))
	}
	must(t, os.WriteFile(filepath.Join(e.Root, "f.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(e.Root, "b.bin"), []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}, 0o644))
	r, _ := runTool(t, e, "read_file", `{"path":"f.txt","offset":10,"limit":3}`)
	if !strings.Contains(r.Output, "    10\t"+lines[9]) || strings.Contains(r.Output, "    13\t") || !strings.Contains(r.Output, "offset=13") {
		t.Errorf("paging output:\n%s", r.Output)
	}
	r, _ = runTool(t, e, "read_file", `{"path":"b.bin"}`)
	if !strings.Contains(r.Output, "binary") {
		t.Errorf("binary: %s", r.Output)
	}
	r, _ = runTool(t, e, "read_file", `{"path":"."}`)
	if !r.Failed {
		t.Errorf("dir read should fail: %s", r.Output)
	}
	r, _ = runTool(t, e, "read_file", `{"path":"missing"}`)
	if !r.Failed {
		t.Error("missing file should fail")
	}
}

func TestEditFile_Matches(t *testing.T) {
	e := newTestEnv(t)
	p := filepath.Join(e.Root, "a.go")
	must(t, os.WriteFile(p, []byte("x := 1\ny := 1\nx := 1\n"), 0o644))
	tests := []struct {
		name, args, want string
		failed           bool
	}{
		{"zero", `{"path":"a.go","old_string":"z := 1","new_string":"z := 2"}`, "not found", true},
		{"several", `{"path":"a.go","old_string":"x := 1","new_string":"x := 2"}`, "matches 2 times", true},
		{"unique", `{"path":"a.go","old_string":"y := 1","new_string":"y := 2"}`, "edited a.go", false},
		{"all", `{"path":"a.go","old_string":"x := 1","new_string":"x := 3","replace_all":true}`, "2 replacement", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := runTool(t, e, "edit_file", tt.args)
			if err != nil || r.Failed != tt.failed || !strings.Contains(r.Output, tt.want) {
				t.Fatalf("%+v %v", r, err)
			}
			if !tt.failed && (len(r.Content) != 1 || r.Content[0].Type != adapters.ToolContentDiff || r.Content[0].OldText == nil || r.Content[0].Path != p) {
				t.Fatalf("diff content %+v", r.Content)
			}
		})
	}
	got, _ := os.ReadFile(p)
	if string(got) != "x := 3\ny := 2\nx := 3\n" {
		t.Fatalf("file %q", got)
	}
}

func TestWriteFile_NewFileDiff(t *testing.T) {
	e := newTestEnv(t)
	r, err := runTool(t, e, "write_file", `{"path":"d/n.txt","content":"hi\n"}`)
	if err != nil || r.Failed || r.Content[0].OldText != nil || r.Content[0].NewText != "hi\n" {
		t.Fatalf("%+v %v", r, err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.Root, "d/n.txt")); string(b) != "hi\n" {
		t.Fatalf("content %q", b)
	}
}

func TestBash_OutputTimeoutAndExit(t *testing.T) {
	if sh := hostShell(); sh.PowerShell {
		t.Skipf("the commands are POSIX sh; the bash tool runs %s here (Git Bash is not installed)", sh.Name)
	}
	e := newTestEnv(t)
	e.OutputCap = 1000
	r, _ := runTool(t, e, "bash", `{"command":"echo out; echo err >&2; exit 3"}`)
	if !r.Failed || !strings.Contains(r.Output, "out\nerr") || !strings.Contains(r.Output, "exit code 3") {
		t.Errorf("exit: %q", r.Output)
	}
	r, _ = runTool(t, e, "bash", `{"command":"echo FIRST; seq 1 100000; echo LAST"}`)
	if !strings.Contains(r.Output, "FIRST") || !strings.Contains(r.Output, "LAST") || !strings.Contains(r.Output, "bytes omitted") || len(r.Output) > 1200 {
		t.Errorf("head/tail cap: len %d %q", len(r.Output), r.Output[:min(len(r.Output), 100)])
	}
	// A timeout that left the group (or its background sleep holding the
	// pipe) alive would hang the test instead.
	r, _ = runTool(t, e, "bash", `{"command":"sleep 3600 & sleep 3600","timeout_ms":300}`)
	if !r.Failed || !strings.Contains(r.Output, "timed out") {
		t.Errorf("timeout: %q", r.Output)
	}
}

func TestBash_CancelKillsGroup(t *testing.T) {
	e := newTestEnv(t)
	needWorkingShell(t, e)
	p, err := e.Prepare("bash", json.RawMessage(`{"command":"sleep 3600"}`))
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	r := p.Run(ctx, nil) // a cancel that left the sleep running would hang the test
	if !strings.Contains(r.Output, "cancelled") {
		t.Errorf("cancel: %q", r.Output)
	}
}

func TestGrepAndGlob(t *testing.T) {
	for _, rg := range []bool{false, true} {
		UseRipgrep = rg
		e := newTestEnv(t)
		must(t, os.MkdirAll(filepath.Join(e.Root, "pkg/sub"), 0o755))
		must(t, os.MkdirAll(filepath.Join(e.Root, ".git"), 0o755))
		must(t, os.WriteFile(filepath.Join(e.Root, "pkg/sub/a.go"), []byte("package sub\nfunc Hello() {}\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(e.Root, "pkg/b.txt"), []byte("hello there\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(e.Root, ".git/x.go"), []byte("func Hello()\n"), 0o644))
		r, _ := runTool(t, e, "grep", `{"pattern":"hello","ignore_case":true,"glob":"*.go"}`)
		if r.Output != "pkg/sub/a.go:2:func Hello() {}" {
			t.Errorf("rg=%v grep: %q", rg, r.Output)
		}
		r, _ = runTool(t, e, "glob", `{"pattern":"**/*.go"}`)
		if r.Output != "pkg/sub/a.go" {
			t.Errorf("glob: %q", r.Output)
		}
		if _, err := runTool(t, e, "glob", `{"pattern":"../**"}`); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("glob escape: %v", err)
		}
	}
	UseRipgrep = true
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// needWorkingShell skips when the bash tool's shell runs nothing here:
// Wine's PowerShell is a stub that exits 0 and prints nothing.
func needWorkingShell(t *testing.T, e *Env) {
	t.Helper()
	if r, _ := runTool(t, e, "bash", `{"command":"echo probe"}`); !strings.Contains(r.Output, "probe") {
		t.Skipf("the bash tool's shell (%s) runs nothing here: %q", hostShell().Name, r.Output)
	}
}

// offset, limit and timeout_ms are the model's to send: any int, the largest too, is served
// (the read overflowed its slice bounds and panicked hub; the bash timeout wrapped negative
// and ended the command at once).
func TestTools_AnyIntArgument(t *testing.T) {
	e := newTestEnv(t)
	must(t, os.WriteFile(filepath.Join(e.Root, "f.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"read_file", `{"path":"f.txt","offset":2,"limit":9223372036854775807}`, "three"},
		{"read_file", `{"path":"f.txt","offset":-9223372036854775808,"limit":1}`, "one"},
		{"bash", `{"command":"echo ran","timeout_ms":9223372036854775807}`, "ran"},
		{"bash", `{"command":"echo ran","timeout_ms":10000000000000}`, "ran"},
	} {
		if tc.tool == "bash" {
			needWorkingShell(t, e) // after the reads
		}
		r, err := runTool(t, e, tc.tool, tc.args)
		if err != nil || r.Failed || !strings.Contains(r.Output, tc.want) {
			t.Errorf("%s %s: %q %v", tc.tool, tc.args, r.Output, err)
		}
	}
}
