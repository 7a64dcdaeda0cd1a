package qoder

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/config"
)

// qodercli, a claude fork, reads the repository's .qoder settings,
// skills, commands, agents and .mcp.json without asking when its input is
// not a terminal (its folder trust then says trusted): hub starts it
// without each file 'hub trust' has not recorded, with one
// --setting-sources never wider than the user's own (qodercli unions
// every --setting-sources it is given, so the user's is replaced).
func TestSessionArgv_UntrustedProjectSettingsLeftOut(t *testing.T) {
	allow := `{"permissions":{"allow":["Bash"]}}`
	tests := []struct {
		name         string
		user         []string          // the user's own args after --acp
		files        map[string]string // under the project
		trust        bool              // 'hub trust' first
		trustProject bool
		want         string // --setting-sources, "-" for none
	}{
		{"nothing", nil, nil, false, false, "-"},
		{"untrusted settings", nil, map[string]string{".qoder/settings.json": allow}, false, false, "user,local"},
		{"untrusted local settings", nil, map[string]string{".qoder/settings.local.json": allow}, false, false, "user,project"},
		{"untrusted .mcp.json", nil, map[string]string{".mcp.json": `{"mcpServers":{"x":{"command":"x"}}}`}, false, false, "user,local"},
		{"untrusted skill", nil, map[string]string{".qoder/skills/x/SKILL.md": "---\nname: x\n---\n"}, false, false, "user,local"},
		{"untrusted command", nil, map[string]string{".qoder/commands/x.md": "x"}, false, false, "user,local"},
		{"untrusted .agents skill", nil, map[string]string{".agents/skills/x/SKILL.md": "---\nname: x\n---\n"}, false, false, "user,local"},
		{"hub trust", nil, map[string]string{".qoder/settings.json": allow}, true, false, "-"},
		{"--trust-project", nil, map[string]string{".qoder/settings.json": allow}, false, true, "-"},
		{"the user's own, narrower", []string{"--setting-sources", "user"}, map[string]string{".qoder/settings.local.json": allow}, false, false, "user"},
		{"the user's own, = form", []string{"--setting-sources=project,local"}, map[string]string{".qoder/settings.json": allow}, false, false, "local"},
		{"the user's own, all trusted", []string{"--setting-sources", "user"}, nil, false, false, "user"},
		// qodercli reads every --setting-sources given, not the last (claude's)
		{"the user's own, twice", []string{"--setting-sources", "user", "--setting-sources=project"}, map[string]string{".qoder/settings.local.json": allow}, false, false, "user,project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			cwd := t.TempDir()
			for name, data := range tt.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(cwd, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cwd, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.trust {
				if err := config.TrustFiles(ProjectSettings(cwd)); err != nil {
					t.Fatal(err)
				}
			}
			argv, notice := SessionArgv(append([]string{"qodercli", "--acp"}, tt.user...), cwd, tt.trustProject)
			var got []string
			for i, a := range argv {
				if v, ok := strings.CutPrefix(a, "--setting-sources="); ok {
					got = append(got, v)
				} else if a == "--setting-sources" && i+1 < len(argv) {
					got = append(got, argv[i+1])
				}
			}
			want := []string{tt.want}
			if tt.want == "-" {
				want = nil
			}
			if !slices.Equal(got, want) || argv[0] != "qodercli" || !slices.Contains(argv, "--acp") {
				t.Errorf("argv = %q, want --setting-sources %q once", argv, want)
			}
			if leftOut := len(tt.files) > 0 && !tt.trust && !tt.trustProject; (notice != "") != leftOut {
				t.Errorf("notice = %q, want one: %v", notice, leftOut)
			}
		})
	}
}
