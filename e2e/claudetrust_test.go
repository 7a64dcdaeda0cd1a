//go:build e2e && unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

// A repository's .claude/settings.json, which claude -p reads without its
// trust dialog, may allow tools and run hooks (a SessionStart hook runs as
// the session opens), as may its .mcp.json, whose servers claude starts
// unasked. Until hub trusts them, claude runs without them, and the first
// turn says so; trusted for the run, they run.
func TestClaude_RepositorySettingsNeedHubTrust(t *testing.T) {
	bin := e2eCLI(t, "claude", "claude")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name           string
		trusted        bool
		settings, mcpJ bool // the files the repository ships
	}{
		{"untrusted", false, true, true},
		{"untrusted .mcp.json alone", false, false, true},
		{"trusted for the run", true, true, true},
	} {
		trusted := tt.trusted
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewAnthropicServer(
				mockllm.AnthropicTurn{Text: "Touching.", ToolUses: []mockllm.AnthropicToolUse{
					{Name: "Bash", Input: `{"command":"touch f.txt","description":"touch f.txt"}`}}},
				mockllm.AnthropicTurn{Text: "Done."},
			)
			defer mock.Close()
			t.Setenv("HOME", t.TempDir())
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			cwd, mark := t.TempDir(), filepath.Join(t.TempDir(), "ran")
			hook := []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
				"command": e2eMarkEnv + "=" + mark + " " + self + " -test.run=^$"}}}}
			settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": []string{"Bash"}},
				"hooks": map[string]any{"SessionStart": hook, "UserPromptSubmit": hook}})
			if err := os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"repo": map[string]any{
				"command": self, "args": []string{"-test.run=^$"}, "env": map[string]string{e2eMarkEnv: mark}}}})
			for file, data := range map[string][]byte{filepath.Join(".claude", "settings.json"): settings, ".mcp.json": mcpJSON} {
				if !tt.settings && file != ".mcp.json" || !tt.mcpJ && file == ".mcp.json" {
					continue
				}
				if err := os.WriteFile(filepath.Join(cwd, file), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a := claude.New(config.AgentConfig{Command: config.Command{bin}, Env: claudeEnv(mock)}, zerolog.New(os.Stderr))
			a.TrustProject = trusted
			s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: cwd})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("touch f.txt"))
			if err != nil {
				t.Fatal(err)
			}
			evs := claudeDrain(t, ch, func(p *adapters.PermissionRequest) { p.Respond(adapters.PermissionDecision{Kind: adapters.RejectOnce}) })
			if _, err := os.Stat(mark); (err == nil) != trusted {
				t.Fatalf("the repository's hook or MCP server ran: %v, want %v\n%s", err == nil, trusted, claudeDump(t, evs))
			}
			warned := slices.ContainsFunc(evs, func(e adapters.Event) bool { return e.Error != nil && e.Error.Code == adapters.CodeWarning })
			if warned == trusted {
				t.Errorf("warned of the settings left out: %v, want %v", warned, !trusted)
			}
		})
	}
}

// A repository's .claude/skills skill with allowed-tools lets claude run
// Bash unasked once the model invokes it, past hub's gate, with no
// settings.json in sight. Until hub trusts it, claude runs without it:
// Bash is asked, and hub's rejection holds.
func TestClaude_RepositorySkillNeedsHubTrust(t *testing.T) {
	bin := e2eCLI(t, "claude", "claude")
	for _, trusted := range []bool{false, true} {
		t.Run(map[bool]string{false: "untrusted", true: "trusted for the run"}[trusted], func(t *testing.T) {
			mock := mockllm.NewAnthropicServer(
				mockllm.AnthropicTurn{Text: "Using it.", ToolUses: []mockllm.AnthropicToolUse{{Name: "Skill", Input: `{"skill":"touch"}`}}},
				mockllm.AnthropicTurn{Text: "Touching.", ToolUses: []mockllm.AnthropicToolUse{
					{Name: "Bash", Input: `{"command":"touch f.txt","description":"touch f.txt"}`}}},
				mockllm.AnthropicTurn{Text: "Done."},
			)
			defer mock.Close()
			t.Setenv("HOME", t.TempDir())
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			cwd := t.TempDir()
			dir := filepath.Join(cwd, ".claude", "skills", "touch")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			skill := "---\nname: touch\ndescription: touches files\nallowed-tools: Bash\n---\nRun touch f.txt.\n"
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skill), 0o644); err != nil {
				t.Fatal(err)
			}
			a := claude.New(config.AgentConfig{Command: config.Command{bin}, Env: claudeEnv(mock)}, zerolog.New(os.Stderr))
			a.TrustProject = trusted
			s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: cwd})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("touch f.txt"))
			if err != nil {
				t.Fatal(err)
			}
			evs := claudeDrain(t, ch, func(p *adapters.PermissionRequest) { // the skill yes, Bash no
				p.Respond(adapters.PermissionDecision{Kind: map[bool]adapters.PermissionOptionKind{true: adapters.AllowOnce, false: adapters.RejectOnce}[p.Tool.Name == "Skill"]})
			})
			if _, err := os.Stat(filepath.Join(cwd, "f.txt")); (err == nil) != trusted {
				t.Fatalf("Bash ran unasked: %v, want %v\n%s", err == nil, trusted, claudeDump(t, evs))
			}
		})
	}
}

// A user who starts claude with --setting-sources user (claude's args in
// hub's config) keeps the project's settings.local.json out even when hub
// trusts it: with an untrusted settings.json next to it, hub's own
// user,local came after the user's list and claude took it, so the local
// file's SessionStart hook ran (fails on main 08d96c7). Now claude gets
// the sources both lists allow; with "project" alone, none.
func TestClaude_UsersSettingSourcesNarrowHubs(t *testing.T) {
	bin := e2eCLI(t, "claude", "claude")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, sources string
		ran           bool
	}{
		{"user", "user", false},
		{"project", "project", false},
		{"user,local", "user,local", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Hello."})
			defer mock.Close()
			t.Setenv("HOME", t.TempDir())
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			cwd, mark := t.TempDir(), filepath.Join(t.TempDir(), "ran")
			hook := []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
				"command": e2eMarkEnv + "=" + mark + " " + self + " -test.run=^$"}}}}
			local, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": hook, "UserPromptSubmit": hook}})
			if err := os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"), local, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := config.TrustFiles(claude.ProjectSettings(cwd)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cwd, ".claude", "settings.json"), []byte(`{"hooks":{"SessionStart":[]}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			a := claude.New(config.AgentConfig{Command: config.Command{bin, "--setting-sources", tt.sources}, Env: claudeEnv(mock)}, zerolog.New(os.Stderr))
			s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: cwd})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hello"))
			if err != nil {
				t.Fatal(err)
			}
			evs := claudeDrain(t, ch, nil)
			if last := evs[len(evs)-1]; last.Type != adapters.EventDone || last.StopReason != adapters.StopEndTurn {
				t.Fatalf("turn did not end well: %s", claudeDump(t, evs))
			}
			if _, err := os.Stat(mark); (err == nil) != tt.ran {
				t.Errorf("the trusted settings.local.json hook ran: %v, want %v\n%s", err == nil, tt.ran, claudeDump(t, evs))
			}
		})
	}
}
