package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditFile_KeepsCRLF(t *testing.T) {
	tests := []struct {
		name, file, args, want string
	}{
		{"lf old_string in crlf file", "a\r\nb\r\nc\r\n", `{"path":"f","old_string":"a\nb","new_string":"x\ny\nz"}`, "x\r\ny\r\nz\r\nc\r\n"},
		{"crlf old_string in crlf file", "a\r\nb\r\n", `{"path":"f","old_string":"a\r\nb","new_string":"q"}`, "q\r\n"},
		{"lf file stays lf", "a\nb\n", `{"path":"f","old_string":"a\nb","new_string":"x\ny"}`, "x\ny\n"},
		{"mixed file matched as is", "a\r\nb\nc\n", `{"path":"f","old_string":"b\nc","new_string":"d\ne"}`, "a\r\nd\ne\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			p := filepath.Join(e.Root, "f")
			must(t, os.WriteFile(p, []byte(tt.file), 0o644))
			r, err := runTool(t, e, "edit_file", tt.args)
			if err != nil || r.Failed {
				t.Fatalf("%+v %v", r, err)
			}
			if got, _ := os.ReadFile(p); string(got) != tt.want {
				t.Fatalf("file %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteFile_KeepsExistingCRLF(t *testing.T) {
	tests := []struct {
		name, old, content, want string
	}{
		{"crlf file", "a\r\nb\r\n", "p\nq\n", "p\r\nq\r\n"},
		{"content with cr kept", "a\r\nb\r\n", "p\r\nq\n", "p\r\nq\n"},
		{"lf file", "a\nb\n", "p\nq\n", "p\nq\n"},
		{"new file", "", "p\nq\n", "p\nq\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			p := filepath.Join(e.Root, "f")
			if tt.old != "" {
				must(t, os.WriteFile(p, []byte(tt.old), 0o644))
			}
			args := strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(tt.content)
			r, err := runTool(t, e, "write_file", `{"path":"f","content":"`+args+`"}`)
			if err != nil || r.Failed || r.Content[0].NewText != tt.want {
				t.Fatalf("%+v %v", r, err)
			}
			if got, _ := os.ReadFile(p); string(got) != tt.want {
				t.Fatalf("file %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadFile_HidesCR(t *testing.T) {
	e := newTestEnv(t)
	must(t, os.WriteFile(filepath.Join(e.Root, "f"), []byte("one\r\ntwo\r\n"), 0o644))
	r, _ := runTool(t, e, "read_file", `{"path":"f"}`)
	if r.Failed || strings.Contains(r.Output, "\r") || !strings.Contains(r.Output, "     2\ttwo\n") {
		t.Fatalf("%q", r.Output)
	}
}

func TestGrep_LineEndAnchorInCRLFFile(t *testing.T) {
	UseRipgrep = false
	defer func() { UseRipgrep = true }()
	e := newTestEnv(t)
	must(t, os.WriteFile(filepath.Join(e.Root, "f.txt"), []byte("alpha\r\nbeta\r\n"), 0o644))
	r, _ := runTool(t, e, "grep", `{"pattern":"a$"}`)
	if r.Output != "f.txt:1:alpha\nf.txt:2:beta" {
		t.Fatalf("%q", r.Output)
	}
}

func TestReadFile_UTF16WithBOM(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"little endian", []byte{0xFF, 0xFE, 'h', 0, 'i', 0, '\r', 0, '\n', 0, 0xE9, 0, '\n', 0}, "     1\thi\n     2\té\n"},
		{"big endian", []byte{0xFE, 0xFF, 0, 'o', 0, 'k', 0, '\n'}, "     1\tok\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			must(t, os.WriteFile(filepath.Join(e.Root, "u.txt"), tt.data, 0o644))
			r, _ := runTool(t, e, "read_file", `{"path":"u.txt"}`)
			if r.Failed || r.Output != tt.want {
				t.Fatalf("%+v", r)
			}
			r, _ = runTool(t, e, "edit_file", `{"path":"u.txt","old_string":"o","new_string":"x"}`)
			if !r.Failed || !strings.Contains(r.Output, "UTF-16") {
				t.Fatalf("edit of UTF-16 must be refused: %+v", r)
			}
		})
	}
}
