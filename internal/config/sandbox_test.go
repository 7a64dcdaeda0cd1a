package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hubdev/hub/internal/sandbox"
)

// [sandbox] from an untrusted project file may only narrow what the user
// set (a stricter mode, network = false); a trusted one sets anything.
func TestLoad_ProjectSandboxOnlyNarrowsUntilTrusted(t *testing.T) {
	for _, tc := range []struct {
		name, user, project string
		trusted             bool
		want                sandbox.Policy
		ignored             int
	}{
		{"default", "", "", false, sandbox.Policy{Mode: sandbox.WorkspaceWrite}, 0},
		{"user sets network", "[sandbox]\nnetwork = true\n", "", false, sandbox.Policy{Mode: sandbox.WorkspaceWrite, Network: true}, 0},
		{"project narrows to read-only", "", "[sandbox]\nmode = \"read-only\"\n", false, sandbox.Policy{Mode: sandbox.ReadOnly}, 0},
		{"project turns network off", "[sandbox]\nnetwork = true\n", "[sandbox]\nnetwork = false\n", false, sandbox.Policy{Mode: sandbox.WorkspaceWrite}, 0},
		{"project may not turn it off", "", "[sandbox]\nmode = \"off\"\n", false, sandbox.Policy{Mode: sandbox.WorkspaceWrite}, 1},
		{"project may not widen read-only", "[sandbox]\nmode = \"read-only\"\n", "[sandbox]\nmode = \"workspace-write\"\n", false, sandbox.Policy{Mode: sandbox.ReadOnly}, 1},
		{"project may not turn network on", "", "[sandbox]\nnetwork = true\n", false, sandbox.Policy{Mode: sandbox.WorkspaceWrite}, 1},
		{"trusted project widens", "", "[sandbox]\nmode = \"off\"\nnetwork = true\n", true, sandbox.Policy{Mode: sandbox.Off, Network: true}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "cfg"))
			t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
			user := filepath.Join(root, "cfg", "hub", "config.toml")
			repo := filepath.Join(root, "repo")
			for _, d := range []string{filepath.Dir(user), filepath.Join(repo, ".git"), filepath.Join(repo, ".hub")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(user, []byte(tc.user), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ProjectPath(repo), []byte(tc.project), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadTrusting(repo, "", tc.trusted)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Sandbox.Policy(); got != tc.want {
				t.Errorf("policy = %+v; want %+v", got, tc.want)
			}
			if len(c.Ignored) != tc.ignored {
				t.Errorf("ignored = %+v; want %d key(s)", c.Ignored, tc.ignored)
			}
		})
	}
}

func TestParse_UnknownSandboxModeIsInvalid(t *testing.T) {
	_, err := Parse("c.toml", []byte("[sandbox]\nmode = \"yolo\"\n"))
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, sandbox.ErrMode) {
		t.Fatalf("err = %v; want ErrInvalid naming the mode", err)
	}
}
