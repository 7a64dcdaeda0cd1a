package config

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestParse_Grants(t *testing.T) {
	tests := []struct {
		toml  string
		scope string
		life  time.Duration
		bad   bool
	}{
		{"", GrantsProject, 7 * 24 * time.Hour, false},
		{"[permissions]\ngrants = \"user\"\ngrant_days = 30\n", GrantsUser, 30 * 24 * time.Hour, false},
		{"[permissions]\ngrants = \"Session\"\n", GrantsSession, 7 * 24 * time.Hour, false},
		{"[permissions]\ngrants = \"forever\"\n", "", 0, true},
		{"[permissions]\ngrant_days = -1\n", "", 0, true},
	}
	for _, tt := range tests {
		c, err := Parse("config.toml", []byte(tt.toml))
		if tt.bad {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%q: got %v, want ErrInvalid", tt.toml, err)
			}
			continue
		}
		if err != nil || c.Permissions.GrantScope() != tt.scope || c.Permissions.GrantLifetime() != tt.life {
			t.Errorf("%q: scope %q life %v (%v)", tt.toml, c.Permissions.GrantScope(), c.Permissions.GrantLifetime(), err)
		}
	}
}

// An untrusted project may turn durable grants off, never widen them.
func TestLoad_UntrustedProjectCannotWidenGrants(t *testing.T) {
	for _, tt := range []struct{ project, want string }{
		{"grants = \"user\"\ngrant_days = 365\n", GrantsProject},
		{"grants = \"session\"\n", GrantsSession},
	} {
		root := t.TempDir()
		t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "cfg"))
		t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
		repo := filepath.Join(root, "repo")
		writeTree(t, repo, map[string]string{".git/HEAD": "ref", ".hub/config.toml": "[permissions]\n" + tt.project})
		c, err := Load(repo, "")
		if err != nil {
			t.Fatal(err)
		}
		if c.Permissions.GrantScope() != tt.want || c.Permissions.GrantDays != 0 {
			t.Errorf("%q: grants %q days %d", tt.project, c.Permissions.GrantScope(), c.Permissions.GrantDays)
		}
	}
}

func TestProjectRoot_RepositoryElseCwd(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"repo/.git/HEAD": "ref", "repo/a/b": "", "plain/a": ""})
	if got := ProjectRoot(filepath.Join(root, "repo", "a", "b")); got != filepath.Join(root, "repo") {
		t.Errorf("in a repository: %s", got)
	}
	plain := filepath.Join(root, "plain", "a")
	if got := ProjectRoot(plain); got != plain {
		t.Errorf("outside a repository: %s", got)
	}
}
