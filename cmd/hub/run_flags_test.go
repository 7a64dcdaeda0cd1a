package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/sandbox"
)

// --sandbox sets the mode the run's agents are built with; the user's own
// flag may widen what the config set.
func TestRunConfig_SandboxFlag(t *testing.T) {
	tests := []struct {
		config, flag string
		want         sandbox.Mode
		wantErr      bool
	}{
		{"", "read-only", sandbox.ReadOnly, false},
		{"workspace-write", "read-only", sandbox.ReadOnly, false},
		{"read-only", "off", sandbox.Off, false},
		{"read-only", "workspace-write", sandbox.WorkspaceWrite, false},
		{"read-only", "", sandbox.ReadOnly, false},
		{"", "none", "", true},
		{"", "read-only --network", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.config+"/"+tt.flag, func(t *testing.T) {
			base := &config.Config{Sandbox: config.SandboxConfig{Mode: tt.config}}
			cfg, err := runConfig(base, tt.flag, false)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v", err)
			}
			if err == nil && cfg.Sandbox.Policy().Mode != tt.want {
				t.Fatalf("mode %q, want %q", cfg.Sandbox.Policy().Mode, tt.want)
			}
			if base.Sandbox.Mode != tt.config {
				t.Fatal("the loaded config changed")
			}
		})
	}
}

func TestRun_BadSandboxIsAUsageError(t *testing.T) {
	isolate(t)
	code, _, errOut := hub(t, nil, "run", "--agent", "replay", "--sandbox", "loose", "hi")
	if code != 2 || !strings.Contains(errOut, "--sandbox") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
}

// An unknown agent in --fallback is a usage error before any agent runs,
// as an unknown --agent is.
func TestRun_UnknownFallbackIsAUsageError(t *testing.T) {
	isolate(t)
	code, out, errOut := hub(t, nil, "run", "--agent", "replay", "--fallback", "replay,nosuchagent", "hi")
	if code != 2 || !strings.Contains(errOut, "nosuchagent") || out != "" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// --no-stream reaches the native loop's requests.
func TestRun_NoStreamFlag(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		t.Run(fmt.Sprint(noStream), func(t *testing.T) {
			srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ok"})
			defer srv.Close()
			root := isolate(t)
			addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
			args := []string{"run", "--agent", "mock", "--cwd", t.TempDir(), "hi"}
			if noStream {
				args = append(args, "--no-stream")
			}
			if code, out, errOut := hub(t, nil, args...); code != 0 || out != "ok\n" {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
			}
			if got := srv.Requests()[0].Stream; got == noStream {
				t.Fatalf("request stream = %v with --no-stream %v", got, noStream)
			}
		})
	}
}

// --no-transcript writes no transcript although transcripts = true.
func TestRun_NoTranscriptFlag(t *testing.T) {
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprint(off), func(t *testing.T) {
			root := isolate(t)
			user := filepath.Join(root, "xdg_config_home", "hub", "config.toml")
			old, _ := os.ReadFile(user)
			if err := os.WriteFile(user, append([]byte("transcripts = true\n"), old...), 0o644); err != nil { // a top-level key
				t.Fatal(err)
			}
			args := []string{"run", "--agent", "replay", "hi"}
			if off {
				args = append(args, "--no-transcript")
			}
			if code, _, errOut := hub(t, nil, args...); code != 0 {
				t.Fatalf("exit %d stderr %q", code, errOut)
			}
			files, _ := os.ReadDir(config.TranscriptDir())
			if (len(files) == 0) != off {
				t.Fatalf("--no-transcript %v: %d transcripts in %s", off, len(files), config.TranscriptDir())
			}
		})
	}
}

// --max-turns reaches the native loop's max_turn_requests: one request,
// then the run stops with exit 7.
func TestRun_MaxTurnsNative(t *testing.T) {
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		mockllm.OpenAITurn{Text: "done"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
	code, out, errOut := hub(t, nil, "run", "--agent", "mock", "--max-turns", "1", "--format", "jsonl", "--cwd", t.TempDir(), "hi")
	if code != 7 || !strings.Contains(out, `"stopReason":"max_turn_requests"`) || len(srv.Requests()) != 1 {
		t.Fatalf("exit %d, %d requests\nstdout %s\nstderr %s", code, len(srv.Requests()), out, errOut)
	}
}

// --output-schema FILE: the provider's answer is printed as JSON (the
// profile's json_schema sends response_format); a repaired answer too; one
// invalid twice exits 10 naming the mismatch; a missing file or a bad
// schema exits 2 before any model request.
func TestRun_OutputSchemaFlag(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "review.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"type":"objekt"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		file    string
		answers []string
		code    int
		stdout  string
		stderr  string
		agents  string // --agents, best of N
	}{
		{name: "valid", file: schema, answers: []string{"```json\n{\"ok\": true}\n```"}, code: 0, stdout: `{"ok":true}` + "\n"},
		{name: "repaired", file: schema, answers: []string{"yes", `{"ok":false}`}, code: 0, stdout: `{"ok":false}` + "\n"},
		{name: "invalid twice", file: schema, answers: []string{"yes", `{"ok":"yes"}`}, code: 10, stdout: "yes\n\n{\"ok\":\"yes\"}\n", stderr: "at '/ok': got string, want boolean (exit 10)"},
		{name: "no such file", file: filepath.Join(dir, "nope.json"), code: 2, stderr: "--output-schema"},
		{name: "not a schema", file: bad, code: 2, stderr: "--output-schema is not a valid JSON Schema: at '/type'"},
		{name: "best of N", file: schema, agents: "mock,mock", code: 2, stderr: "does not apply to --agents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var turns []mockllm.OpenAITurn
			for _, a := range tt.answers {
				turns = append(turns, mockllm.OpenAITurn{Text: a})
			}
			srv := mockllm.NewOpenAIServer(turns...)
			defer srv.Close()
			root := isolate(t)
			addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\njson_schema = true\n", srv.URL))
			args := []string{"run", "--agent", "mock", "--cwd", t.TempDir(), "--output-schema", tt.file, "review"}
			if tt.agents != "" {
				args = append(args, "--agents", tt.agents)
			}
			code, out, errOut := hub(t, nil, args...)
			if code != tt.code || out != tt.stdout || !strings.Contains(errOut, tt.stderr) {
				t.Fatalf("exit %d stdout %q stderr %q, want exit %d stdout %q stderr naming %q", code, out, errOut, tt.code, tt.stdout, tt.stderr)
			}
			if n := len(srv.Requests()); n != len(tt.answers) {
				t.Fatalf("%d model requests, want %d", n, len(tt.answers))
			}
			if n := len(tt.answers); n > 0 && !strings.Contains(string(srv.Requests()[0].Body), `"response_format":{"type":"json_schema"`) {
				t.Errorf("the request has no response_format: %s", srv.Requests()[0].Body)
			}
		})
	}
}

// --append-system-prompt @FILE reads the file and reaches the system
// message; a file that is not regular is a usage error.
func TestRun_AppendSystemPromptFromFile(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ok"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
	file := filepath.Join(t.TempDir(), "review.md")
	if err := os.WriteFile(file, []byte("Flag every TODO."), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := hub(t, nil, "run", "--agent", "mock", "--cwd", t.TempDir(), "--append-system-prompt", "@"+file, "hi"); code != 0 || out != "ok\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if got := mockllm.MessageText(srv.Requests()[0].Messages[0]); !strings.Contains(got, "Flag every TODO.") {
		t.Fatalf("system message lacks the file's text:\n%s", got)
	}
	if code, _, errOut := hub(t, nil, "run", "--agent", "mock", "--append-system-prompt", "@"+t.TempDir(), "hi"); code != 2 || !strings.Contains(errOut, "--append-system-prompt") {
		t.Fatalf("a folder as the file: exit %d stderr %q", code, errOut)
	}
}
