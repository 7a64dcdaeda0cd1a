package qoder

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/adapters/acpclient/acptest"
	"github.com/hubdev/hub/internal/permission"
)

// bashCall is the session/update lines qodercli 1.1.52 writes for a Bash call
// (acp-tool's shape), with a session/request_permission when it asks.
func bashCall(id int, input map[string]any, asked bool) string {
	raw, _ := json.Marshal(input)
	call := fmt.Sprintf(`{"toolCallId":"toolu_%d","status":"pending","title":%q,"kind":"execute","rawInput":%s,"_meta":{"qoder":{"toolName":"Bash"}}}`,
		id, input["command"], raw)
	out := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call",%s}}`+"\n", call[1:])
	if asked {
		out += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"s","options":[{"optionId":"proceed_always_and_save","name":"Always allow","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}],"toolCall":%s}}`+"\n", id, call)
	}
	return out + fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"toolu_%d","status":"completed"}}}`+"\n", id)
}

// qodercli's Bash keeps its shell's directory between calls and runs the
// commands it deems read-only (cd) without asking: hub reads a later asked
// command where the earlier calls left the shell, and asks every time once it
// cannot tell where that is.
func TestShellDir_LaterCommandReadWhereTheShellIs(t *testing.T) {
	const hook = "echo x > hooks/pre-commit"
	tests := []struct {
		name   string
		before []map[string]any // calls qodercli ran unasked
		want   string           // the asked hook line: "hook" (read in .git: asked every time), "lost" (asked every time: hub lost track) or "ask"
	}{
		{"cd .git", []map[string]any{{"command": "cd .git"}}, "hook"},
		{"cd in a chain that fails after it", []map[string]any{{"command": "cd .git && false"}}, "hook"},
		{"cd in two steps", []map[string]any{{"command": "cd sub"}, {"command": "cd ../.git"}}, "hook"},
		{"cd outside the workspace, back home", []map[string]any{{"command": "cd .git"}, {"command": "cd /"}}, "hook"},
		{"cd hub cannot follow", []map[string]any{{"command": `cd "$(cat d)"`}}, "lost"},
		{"cd - (the old directory)", []map[string]any{{"command": "cd sub"}, {"command": "cd -"}}, "lost"},
		{"source may cd", []map[string]any{{"command": ". ./env.sh"}}, "lost"},
		{"a later cd that fails", []map[string]any{{"command": "cd .git; cd ../zzz"}}, "hook"},
		{"cd || cd", []map[string]any{{"command": "cd .git || cd ../sub"}}, "hook"},
		{"cd && cd that fails", []map[string]any{{"command": "cd .git && cd ../zzz"}}, "hook"},
		{"a loop whose later cd fails", []map[string]any{{"command": "for d in .git ../zzz; do cd $d; done"}}, "hook"},
		{"cd in a DEBUG trap (runs before pwd -P)", []map[string]any{{"command": "trap 'cd .git' DEBUG"}}, "lost"},
		{"cd in an ERR trap", []map[string]any{{"command": "trap 'cd .git' ERR; false; true"}}, "lost"},
		{"cd in an alias", []map[string]any{{"command": "shopt -s expand_aliases\nalias g='cd .git'\ng"}}, "lost"},
		{"no cd", []map[string]any{{"command": "ls -la"}, {"command": "git status"}}, "ask"},
		{"cd in a subshell", []map[string]any{{"command": "(cd .git && ls)"}}, "ask"},
		{"cd with dir_path", []map[string]any{{"command": "cd .git", "dir_path": "sub"}}, "ask"},
		{"cd in the background", []map[string]any{{"command": "cd .git", "run_in_background": true}}, "ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cwd := t.TempDir()
			for _, d := range []string{".git/hooks", "sub", "hooks"} {
				if err := os.MkdirAll(filepath.Join(cwd, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var stream strings.Builder
			for i, in := range tt.before {
				stream.WriteString(bashCall(i+1, in, false))
			}
			stream.WriteString(bashCall(99, map[string]any{"command": hook}, true))
			d := acptest.Lines{D: &acpclient.ACPDecoder{Quirks: Quirks, Follow: Quirks.FollowShell(cwd, nil)}}
			var pr *adapters.PermissionRequest
			for _, ev := range decodeLines(d, []byte(stream.String())) {
				if ev.Type == adapters.EventPermission {
					pr = ev.Permission
				}
			}
			if pr == nil {
				t.Fatal("no permission request")
			}
			req := permission.RequestOf(pr.Tool, cwd)
			req.Must = pr.MustAsk
			got := "ask"
			switch _, deny := permission.HardDeny(req); {
			case deny:
				got = "deny"
			case pr.MustAsk != "" && !permission.Coverable(req):
				got = "lost"
			case !permission.Coverable(req):
				got = "hook"
			}
			if got != tt.want {
				t.Errorf("%s after %v: %s, want %s (dirs %q, must %q)", hook, tt.before, got, tt.want, req.Dirs, pr.MustAsk)
			}
		})
	}
}

// The real qodercli 1.1.52 (acp-cd): mkdir -p .git/hooks, cd .git, then
// echo x > hooks/pre-commit && pwd, which printed the .git directory. hub reads the
// last command in .git.
func TestShellDir_RecordedCdIntoGit(t *testing.T) {
	data, err := os.ReadFile("testdata/acp-cd/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const cwd = "/home/dev/project"
	d := acptest.Lines{D: &acpclient.ACPDecoder{Quirks: Quirks, Follow: Quirks.FollowShell(cwd, nil)}}
	dirs := map[string][]string{}
	for _, ev := range decodeLines(d, data) {
		if ev.Type == adapters.EventPermission {
			dirs[ev.Permission.Tool.Title] = permission.RequestOf(ev.Permission.Tool, cwd).Dirs
		}
	}
	tests := []struct {
		command string
		want    []string
	}{
		{"mkdir -p .git/hooks", nil}, // nil: the session directory
		{"cd .git", nil},
		{"echo x > hooks/pre-commit && pwd", []string{cwd, cwd + "/.git"}},
	}
	for _, tt := range tests {
		if got := strings.Join(dirs[tt.command], " "); got != strings.Join(tt.want, " ") {
			t.Errorf("%s read in %q, want %q", tt.command, got, tt.want)
		}
	}
}

// qodercli keeps the directory pwd -P prints: after a cd through a link the next
// call runs in the link's target, where hub reads it.
func TestShellDir_LinkFollowedAsPwdP(t *testing.T) {
	tests := []struct {
		name, cd string
		want     []string // relative to the session directory
	}{
		{"cd into a link", "cd lnk", []string{".", "sub/deep"}},
		{"cd below a link", "cd lnk/x", []string{".", "sub/deep/x"}},
		{"cd into a link to home", "cd home", []string{"."}},
		{"plain cd", "cd sub", []string{".", "sub"}},
	}
	if runtime.GOOS == "windows" {
		t.Skip("qodercli's Git Bash names C:/x as /c/x too, and hub reads both: the set is wider there (only safer)")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cwd := t.TempDir()
			if err := os.MkdirAll(filepath.Join(cwd, "sub/deep/x"), 0o755); err != nil {
				t.Fatal(err)
			}
			for link, target := range map[string]string{"lnk": "sub/deep", "home": "."} {
				err := os.Symlink(filepath.Join(cwd, target), filepath.Join(cwd, link))
				a, _ := os.Stat(filepath.Join(cwd, target))
				b, _ := os.Stat(filepath.Join(cwd, link))
				if err != nil || a == nil || b == nil || !os.SameFile(a, b) { // Wine's CreateSymbolicLinkW is a stub
					t.Skip("no symlinks here:", err)
				}
			}
			real, err := filepath.EvalSymlinks(cwd)
			if err != nil {
				t.Fatal(err)
			}
			f := Quirks.FollowShell(cwd, nil)
			f.Saw(adapters.ToolCall{ID: "1", Name: "Bash", RawInput: json.RawMessage(fmt.Sprintf(`{"command":%q}`, tt.cd))})
			next := adapters.ToolCall{ID: "2", Name: "Bash", RawInput: json.RawMessage(`{"command":"ls"}`)}
			f.Saw(next)
			got, _ := f.Where(next)
			var want []string // the session directory first, as given; nil alone
			for _, w := range tt.want[1:] {
				want = append(want, filepath.ToSlash(filepath.Clean(cwd)), filepath.ToSlash(filepath.Join(real, w)))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("after %s: dirs %q, want %q", tt.cd, got, want)
			}
		})
	}
}
