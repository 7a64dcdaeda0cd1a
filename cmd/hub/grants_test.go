//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

func TestGrants_ListRevokeClear(t *testing.T) {
	root := isolate(t)
	project := filepath.Join(root, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	chdir(t, filepath.Join(project))
	store := permission.OpenGrants(permission.GrantsFile(config.StateDir()), nil)
	add := func(g permission.Grant) permission.Grant {
		g.Expires = time.Now().Add(24 * time.Hour)
		out, err := store.Add(g)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	here := add(permission.Grant{Project: project, Agent: "claude", Tool: "Bash", Scope: "go test"})
	everywhere := add(permission.Grant{Project: permission.AnyProject, Tool: "Bash", Scope: "=make lint"})

	code, out, _ := hub(t, nil, "grants")
	if code != exitOK || !strings.Contains(out, "SCOPE") || !strings.Contains(out, here.ID) || !strings.Contains(out, "go test …") ||
		!strings.Contains(out, everywhere.ID) || !strings.Contains(out, "make lint") {
		t.Fatalf("list: exit %d\n%s", code, out)
	}
	code, out, _ = hub(t, nil, "grants", "list", "--json", "--project")
	var rows []permission.Grant
	if err := json.Unmarshal([]byte(out), &rows); code != exitOK || err != nil || len(rows) != 1 || rows[0].ID != here.ID {
		t.Fatalf("list --json --project: exit %d %v\n%s", code, err, out)
	}

	tests := []struct {
		args    []string
		code    int
		stderr  string
		remains int
	}{
		{[]string{"grants", "revoke", "nope"}, exitError, `no such grant "nope"`, 2},
		{[]string{"grants", "revoke"}, exitUsage, "give one grant id", 2},
		{[]string{"grants", "frobnicate"}, exitUsage, "unknown subcommand", 2},
		{[]string{"grants", "revoke", everywhere.ID}, exitOK, "", 1},
		{[]string{"grants", "clear", "--project"}, exitOK, "1 removed", 0},
	}
	for _, tt := range tests {
		code, _, stderr := hub(t, nil, tt.args...)
		list, _ := store.List()
		if code != tt.code || !strings.Contains(stderr, tt.stderr) || len(list) != tt.remains || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d stderr %q, %d grants left; want %d %q %d", tt.args, code, stderr, len(list), tt.code, tt.stderr, tt.remains)
		}
	}
}

func TestGrants_CorruptFileIsAnError(t *testing.T) {
	isolate(t)
	path := permission.GrantsFile(config.StateDir())
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"grants", "list"}, {"grants", "clear"}} {
		if code, _, stderr := hub(t, nil, args...); code != exitError || !strings.Contains(stderr, path) {
			t.Errorf("%v: exit %d stderr %q", args, code, stderr)
		}
	}
	if raw, _ := os.ReadFile(path); string(raw) != "[oops" {
		t.Fatalf("the file was rewritten: %q", raw)
	}
}
