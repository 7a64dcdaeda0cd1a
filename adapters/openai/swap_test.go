package openai

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
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

// A file tool's path is checked when the call is prepared and used after
// the permission question; what another process swaps in between (a
// folder or the file itself replaced by a link, out of the workspace or to
// a protected file in it) is not followed: the tool fails in one line and
// nothing lands, or is read, where the user was not asked about. Each
// row's gate makes the swap before it answers allow.
func TestSession_LinkSwappedInAfterTheCheckIsRefused(t *testing.T) {
	cases := []struct {
		name, tool, args string
		swap, target     string // swap is replaced by a link to target (outside, or relative to the workspace)
	}{
		{"write_file, folder to outside", "write_file", `{"path":"d/x.txt","content":"new"}`, "d", ""},
		{"edit_file, folder to outside", "edit_file", `{"path":"d/x.txt","old_string":"old","new_string":"new"}`, "d", ""},
		{"write_file, file to outside", "write_file", `{"path":"x.txt","content":"new"}`, "x.txt", "x.txt"},
		{"edit_file, file to outside", "edit_file", `{"path":"x.txt","old_string":"old","new_string":"new"}`, "x.txt", "x.txt"},
		{"write_file, a folder it creates", "write_file", `{"path":"n/sub/x.txt","content":"new"}`, "n", ""},
		{"write_file, folder to .git inside", "write_file", `{"path":"d/config","content":"new"}`, "d", ".git"},
		{"write_file, file to .git inside", "write_file", `{"path":"x.txt","content":"new"}`, "x.txt", ".git/config"},
		{"read_file, folder to ~/.ssh", "read_file", `{"path":"d/id_rsa"}`, "d", ""},
		{"read_file, file to ~/.ssh/id_rsa", "read_file", `{"path":"x.txt"}`, "x.txt", "id_rsa"},
	}
	for i := range 2 * len(cases) {
		c, editor := cases[i/2], map[bool]adapters.EditorClient{false: nil, true: diskEditor{}}[i%2 == 1]
		t.Run(c.name+map[bool]string{false: "", true: ", by the editor"}[editor != nil], func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			for _, f := range []string{"d/x.txt", "d/config", "x.txt", ".git/config"} {
				writeFile(t, filepath.Join(root, f), "old")
			}
			writeFile(t, filepath.Join(outside, "x.txt"), "old")
			writeFile(t, filepath.Join(outside, "id_rsa"), "PRIVATE KEY")
			probe := filepath.Join(root, "probe")
			if os.Symlink(outside, probe) != nil {
				t.Skip("no symlinks here")
			}
			if _, err := os.Lstat(probe); err != nil {
				t.Skip("os.Symlink made no link (Wine's is a stub)")
			}
			target := filepath.Join(outside, c.target)
			if strings.HasPrefix(c.target, ".git") {
				target = c.target // relative: os.Root alone would follow it
			}
			gate := func(context.Context, *adapters.PermissionRequest) adapters.PermissionDecision {
				swap := filepath.Join(root, c.swap)
				_ = os.Rename(swap, swap+".moved") // n does not exist yet
				if err := os.Symlink(target, swap); err != nil {
					t.Error(err)
				}
				return adapters.PermissionDecision{Kind: adapters.AllowOnce, By: "user"}
			}
			srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: c.tool, Args: c.args}}},
				mockllm.OpenAITurn{Text: "done"})
			defer srv.Close()
			s, err := New(Profile{Name: "test", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 200000},
				Options{IdleTimeout: 5 * time.Second}).Start(context.Background(), adapters.SessionOptions{Cwd: root, Permission: gate, Editor: editor})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("go"))
			if err != nil {
				t.Fatal(err)
			}
			drain(t, ch)
			m := srv.Requests()[1].Messages
			got := mockllm.MessageText(m[len(m)-1])
			if strings.Contains(got, "KEY") || strings.HasPrefix(got, "wrote") || strings.HasPrefix(got, "edited") || strings.Contains(strings.TrimSpace(got), "\n") {
				t.Errorf("the model read %q, want a one-line refusal", got)
			}
			for _, p := range []string{filepath.Join(outside, "x.txt"), filepath.Join(root, ".git", "config")} {
				if data, _ := os.ReadFile(p); string(data) != "old" {
					t.Errorf("%s holds %q, want it untouched", p, data)
				}
			}
			if _, err := os.Lstat(filepath.Join(outside, "sub")); err == nil {
				t.Errorf("a folder was made outside the workspace")
			}
		})
	}
}

// diskEditor serves fs methods from the disk by path, following links as
// an editor does.
type diskEditor struct{}

func (diskEditor) CanReadFile() bool  { return true }
func (diskEditor) CanWriteFile() bool { return true }
func (diskEditor) CanTerminal() bool  { return false }
func (diskEditor) ReadTextFile(_ context.Context, p string, _, _ int) (string, error) {
	data, err := os.ReadFile(p)
	return string(data), err
}
func (diskEditor) WriteTextFile(_ context.Context, p, content string) error {
	return os.WriteFile(p, []byte(content), 0o644)
}
func (diskEditor) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.ErrUnsupported
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
