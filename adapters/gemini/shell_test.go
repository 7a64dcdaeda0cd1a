package gemini

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlainShellEnv_ExplicitSettingWins(t *testing.T) {
	const sets = `{"tools":{"shell":{"enableInteractiveShell":true}}}`
	tests := []struct {
		name  string
		files map[string]string // relative to the test dir: home/, cwd/, system/, alt/
		env   map[string]string // values may name the test dir as $D
		plain bool
	}{
		{name: "no settings", plain: true},
		{name: "other settings only", files: map[string]string{"home/.gemini/settings.json": `{"tools":{"shell":{"inactivityTimeout":5}},"general":{}}`}, plain: true},
		{name: "key only in a comment", files: map[string]string{"home/.gemini/settings.json": "{\n // \"tools\":{\"shell\":{\"enableInteractiveShell\":true}}\n \"a\": 1}"}, plain: true},
		{name: "user settings", files: map[string]string{"home/.gemini/settings.json": sets}},
		{name: "user settings with comments", files: map[string]string{"home/.gemini/settings.json": "// mine\n{\"tools\": /* pty */ {\"shell\": {\"enableInteractiveShell\": false}}, \"u\": \"http://x\"}"}},
		{name: "GEMINI_CLI_HOME settings", files: map[string]string{"alt/.gemini/settings.json": sets}, env: map[string]string{"GEMINI_CLI_HOME": "$D/alt"}},
		{name: "HOME unused under GEMINI_CLI_HOME", files: map[string]string{"home/.gemini/settings.json": sets}, env: map[string]string{"GEMINI_CLI_HOME": "$D/alt"}, plain: true},
		{name: "workspace settings", files: map[string]string{"cwd/.gemini/settings.json": sets}},
		{name: "system settings", files: map[string]string{"system/settings.json": sets}},
		{name: "system defaults beside system settings", files: map[string]string{"system/system-defaults.json": sets}},
		{name: "system defaults path", files: map[string]string{"alt/defaults.json": sets}, env: map[string]string{"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "$D/alt/defaults.json"}},
		{name: "pty chosen in the environment", env: map[string]string{ptyInfoEnv: "node-pty"}},
		{name: "unparsable settings", files: map[string]string{"home/.gemini/settings.json": `{"tools":`}, plain: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, content := range tt.files {
				writeFile(t, filepath.Join(dir, rel), content)
			}
			env := []string{"HOME=" + filepath.Join(dir, "home"), "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(dir, "system", "settings.json")}
			for k, v := range tt.env {
				if len(v) > 1 && v[:2] == "$D" {
					v = dir + v[2:]
				}
				env = append(env, k+"="+v)
			}
			optsEnv := map[string]string{"KEEP": "1"}
			got, reason := plainShellEnv(optsEnv, env, filepath.Join(dir, "cwd"))
			if plain := got[ptyInfoEnv] == "child_process"; plain != tt.plain || (reason == "") != tt.plain {
				t.Fatalf("env %v, reason %q; want plain shell %v", got, reason, tt.plain)
			}
			if got["KEEP"] != "1" || len(optsEnv) != 1 {
				t.Errorf("session env lost or changed: got %v, original %v", got, optsEnv)
			}
		})
	}
}

func TestStripJSONComments_KeepsStrings(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1} // tail`, `{"a":1} `},
		{"{\"a\":1, // x\n\"b\":2}", "{\"a\":1, \n\"b\":2}"},
		{`{"u":"http://x/*y*/"}`, `{"u":"http://x/*y*/"}`},
		{`{"q":"a\"//b"} /* c */`, `{"q":"a\"//b"}  `},
		{`{"a":/* unterminated`, `{"a":`},
	}
	for _, tt := range tests {
		if got := string(stripJSONComments([]byte(tt.in))); got != tt.want {
			t.Errorf("stripJSONComments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The environment gemini starts with: GEMINI_PTY_INFO=child_process by
// default, nothing with options.plain_shell = false.
func TestNew_PlainShellByDefault(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]any
		want    string
	}{
		{"default", nil, "true child_process"},
		{"opted out", map[string]any{OptionPlainShell: false}, "false "},
		{"opted in", map[string]any{OptionPlainShell: true}, "true child_process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			env := hermeticEnv(home)
			envFile := filepath.Join(home, "env")
			env[fakeEnv], env[fakeACPEnv], env[fakeEnvFile] = "1", recorded(t, "acp-text"), envFile
			a := New(config.AgentConfig{Command: config.Command{os.Args[0], "--acp"}, Env: env, Options: tt.options}, "test", zerolog.Nop())
			s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			got, err := os.ReadFile(envFile)
			if err != nil || string(got) != tt.want {
				t.Fatalf("gemini saw %s=%q (%v), want %q", ptyInfoEnv, got, err, tt.want)
			}
		})
	}
}
