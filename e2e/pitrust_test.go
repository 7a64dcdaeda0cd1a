//go:build e2e && unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/pi"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
)

// piMarkExtension is a pi extension that writes mark when pi loads it.
func piMarkExtension(t *testing.T, path, mark string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf("import { writeFileSync } from \"node:fs\";\nwriteFileSync(%q, \"ran\");\nexport default function () {}\n", mark)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Through hub run: the repository's extension runs only under
// --trust-project, and an untrusted .pi/settings.json fails the run.
func TestRunPi_RepositoryExtensionNeedsHubTrust(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	for _, tt := range []struct {
		name     string
		flags    []string
		settings bool
		ran      bool
	}{
		{"untrusted", nil, false, false},
		{"--trust-project", []string{"--trust-project"}, false, true},
		{"untrusted settings", nil, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "Hello."})
			defer mock.Close()
			cwd, mark := t.TempDir(), filepath.Join(t.TempDir(), "ran")
			piMarkExtension(t, filepath.Join(cwd, ".pi", "extensions", "repo.ts"), mark)
			if tt.settings {
				if err := os.WriteFile(filepath.Join(cwd, ".pi", "settings.json"), []byte(`{}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append(slices.Clone(tt.flags), "--agent", "pi", "--cwd", cwd, "--format", "jsonl", "hello")
			r := runHub(t, t.TempDir(), piHubCfg(bin, piAgentDir(t, mock)), "", args...)
			if _, err := os.Stat(mark); (err == nil) != tt.ran {
				t.Errorf("the repository's extension ran: %v, want %v\n%s", err == nil, tt.ran, r.stdout)
			}
			if (r.code == 0) == tt.settings {
				t.Errorf("exit %d with untrusted settings %v\n%s%s", r.code, tt.settings, r.stdout, e2eTail(r.stderr, 10))
			}
		})
	}
}

// Through hub acp: an editor's session in an untrusted repository runs pi
// without its extension, and the first turn names the file, once.
func TestPi_ACPRepositoryExtensionLeftOut(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	mock := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "Hello."}, mockllm.OpenAITurn{Text: "Again."})
	defer mock.Close()
	cwd, mark := t.TempDir(), filepath.Join(t.TempDir(), "ran")
	ext := filepath.Join(cwd, ".pi", "extensions", "repo.ts")
	piMarkExtension(t, ext, mark)
	h := startHub(t, piHubCfg(bin, piAgentDir(t, mock)), nil)
	h.initialize(map[string]any{})
	sid := h.newSession(cwd)
	for i, want := range []bool{true, false} {
		stop, updates, err := h.prompt(sid, "hello")
		if err != nil || stop != "end_turn" {
			t.Fatalf("turn %d: stop=%q err=%v\n%s", i+1, stop, err, h.stderr())
		}
		if got := strings.Contains(piAgentText(updates), ext); got != want {
			t.Errorf("turn %d names the extension left out: %v, want %v: %q", i+1, got, want, piAgentText(updates))
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the repository's extension ran under hub acp")
	}
}

// Through hub acp, an untrusted .pi/settings.json fails the prompt with
// one line that names the file and what to do, and pi never runs it.
func TestPi_ACPUntrustedSettingsRefused(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	mock := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "Hello."})
	defer mock.Close()
	cwd := t.TempDir()
	settings := filepath.Join(cwd, ".pi", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"shellCommandPrefix":"true;"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startHub(t, piHubCfg(bin, piAgentDir(t, mock)), nil)
	h.initialize(map[string]any{})
	_, _, err := h.prompt(h.newSession(cwd), "hello")
	if err == nil || !strings.Contains(err.Error(), settings) || !strings.Contains(err.Error(), "hub trust") || strings.Contains(err.Error(), "\n") {
		t.Errorf("prompt error = %v, want one line naming %s and 'hub trust'", err, settings)
	}
}

// pi loads the session directory's .pi/extensions as it starts: code from
// a cloned repository ran with no 'hub trust' (fails on main 08d96c7).
// hub now starts pi without them, and with the user's own, until trusted;
// an untrusted .pi/settings.json (its packages and shell settings run
// commands, and pi cannot leave it out) keeps pi from starting.
func TestPi_RepositoryExtensionNeedsHubTrust(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	for _, tt := range []struct {
		name                   string
		trustProject, hubTrust bool
		settings               bool
	}{
		{"untrusted", false, false, false},
		{"trusted for the run", true, false, false},
		{"hub trust", false, true, false},
		{"untrusted settings", false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "Hello."})
			defer mock.Close()
			t.Setenv("HOME", t.TempDir())
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			agentDir, cwd, marks := piAgentDir(t, mock), t.TempDir(), t.TempDir()
			repo, mine := filepath.Join(marks, "repo"), filepath.Join(marks, "mine")
			piMarkExtension(t, filepath.Join(cwd, ".pi", "extensions", "repo.ts"), repo)
			piMarkExtension(t, filepath.Join(agentDir, "extensions", "mine.ts"), mine)
			if tt.settings {
				if err := os.WriteFile(filepath.Join(cwd, ".pi", "settings.json"), []byte(`{"shellCommandPrefix":"true;"}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.hubTrust {
				if err := config.TrustFiles(pi.ProjectSettings(cwd)); err != nil {
					t.Fatal(err)
				}
			}
			a := pi.NewWithOptions(pi.Options{Argv: []string{bin}, Provider: "mock", Model: "mock-model", Log: zerolog.New(os.Stderr),
				Env: map[string]string{"PI_CODING_AGENT_DIR": agentDir, "PI_OFFLINE": "1"}})
			a.SetTrustProject(tt.trustProject)
			s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: cwd})
			if tt.settings {
				if err == nil {
					s.Close()
					t.Fatal("pi started with an untrusted .pi/settings.json")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			evs := piDrain(t, s, "hello", nil)
			trusted := tt.trustProject || tt.hubTrust
			if _, err := os.Stat(repo); (err == nil) != trusted {
				t.Errorf("the repository's extension ran: %v, want %v", err == nil, trusted)
			}
			if _, err := os.Stat(mine); err != nil {
				t.Errorf("the user's own extension did not run: %v", err)
			}
			warned := slices.ContainsFunc(evs, func(e adapters.Event) bool { return e.Error != nil && e.Error.Code == adapters.CodeWarning })
			if warned == trusted {
				t.Errorf("warned of the extension left out: %v, want %v: %+v", warned, !trusted, evs)
			}
		})
	}
}
