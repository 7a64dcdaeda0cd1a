//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO in the workspace (a command may make one) is refused at once:
// read_file does not block on a pipe nobody writes.
func TestReadFile_FIFORefused(t *testing.T) {
	e := newTestEnv(t)
	must(t, syscall.Mkfifo(filepath.Join(e.Root, "pipe"), 0o600))
	r, err := runTool(t, e, "read_file", `{"path":"pipe"}`)
	if err != nil || !r.Failed {
		t.Fatalf("read of a FIFO: %+v %v", r, err)
	}
}

// write_file and edit_file refuse a FIFO at once too, instead of blocking
// on reading what it holds (or on writing, which waits for a reader).
func TestWriteFile_FIFORefused(t *testing.T) {
	for _, tool := range []string{"write_file", "edit_file"} {
		t.Run(tool, func(t *testing.T) {
			e := newTestEnv(t)
			must(t, syscall.Mkfifo(filepath.Join(e.Root, "pipe"), 0o600))
			r, err := runTool(t, e, tool, `{"path":"pipe","content":"x","old_string":"a","new_string":"b"}`)
			if err != nil || !r.Failed || !strings.Contains(r.Output, "not a regular file") {
				t.Fatalf("%s of a FIFO: %+v %v", tool, r, err)
			}
		})
	}
}

// grep's own search (no rg) named a FIFO reads nothing from it.
func TestGrep_FIFONotRead(t *testing.T) {
	UseRipgrep = false
	defer func() { UseRipgrep = true }()
	e := newTestEnv(t)
	must(t, syscall.Mkfifo(filepath.Join(e.Root, "pipe"), 0o600))
	if r, err := runTool(t, e, "grep", `{"pattern":"x","path":"pipe"}`); err != nil || r.Output != "no matches" {
		t.Fatalf("grep of a FIFO: %+v %v", r, err)
	}
}

// write_file and edit_file keep an existing file's mode (an executable
// script stays executable).
func TestWriteFile_KeepsMode(t *testing.T) {
	tests := []struct{ name, tool, args string }{
		{"write", "write_file", `{"path":"run.sh","content":"echo b\n"}`},
		{"edit", "edit_file", `{"path":"run.sh","old_string":"echo a","new_string":"echo b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			p := filepath.Join(e.Root, "run.sh")
			must(t, os.WriteFile(p, []byte("echo a\n"), 0o700))
			if r, err := runTool(t, e, tt.tool, tt.args); err != nil || r.Failed {
				t.Fatalf("%+v %v", r, err)
			}
			if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o700 {
				t.Fatalf("mode after %s: %v %v", tt.tool, st.Mode(), err)
			}
		})
	}
}
