package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
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

// hub run --agent PERSONA runs the persona on its backend: its prompt is
// the system message, its model the request's, and a tool it does not
// list is neither offered nor run, even under --approve all; the refusal
// counts as one (exit 6), as every refusal does.
func TestRun_PersonaOnTheNativeLoop(t *testing.T) {
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"a.txt","content":"x"}`}}},
		mockllm.OpenAITurn{Text: "done"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
	writeFile(t, filepath.Join(root, "xdg_config_home", "hub", "agents", "reviewer.md"),
		"---\nname: reviewer\ndescription: Reviews changes.\nagent: mock\nmodel: persona-model\ntools: Read, Grep\nreplace: true\n---\nYou are the reviewer.\n")
	cwd := t.TempDir()
	var out, errb bytes.Buffer
	code := realMain(context.Background(), []string{"run", "--agent", "reviewer", "--approve", "all", "--cwd", cwd, "review"}, strings.NewReader(""), &out, &errb)
	if code != 6 || out.String() != "done\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", code, out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(cwd, "a.txt")); err == nil {
		t.Error("the persona wrote a file it may not")
	}
	reqs := srv.Requests()
	if sys := mockllm.MessageText(reqs[0].Messages[0]); sys != "You are the reviewer." || reqs[0].Model != "persona-model" {
		t.Errorf("system %q model %q", sys, reqs[0].Model)
	}
	for _, tl := range reqs[0].Tools {
		if f, _ := tl["function"].(map[string]any); f["name"] == "write_file" || f["name"] == "bash" {
			t.Errorf("offered %v", f["name"])
		}
	}

	out.Reset()
	if code := realMain(context.Background(), []string{"agents", "--json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("hub agents: exit %d", code)
	}
	var rows []struct {
		Name    string
		Persona *struct{ Description, Backend, File, State string }
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	last := rows[len(rows)-1]
	if last.Name != "reviewer" || last.Persona == nil || last.Persona.Backend != "mock" || last.Persona.State != "ready" ||
		last.Persona.Description != "Reviews changes." || !strings.HasSuffix(last.Persona.File, "reviewer.md") {
		t.Errorf("hub agents --json ends with %+v %+v", last, last.Persona)
	}
}

// --max-turns on a persona is its backend's budget.
func TestRun_MaxTurnsPersona(t *testing.T) {
	srv := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		mockllm.OpenAITurn{Text: "done"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
	writeFile(t, filepath.Join(root, "xdg_config_home", "hub", "agents", "r.md"), "---\nname: r\ndescription: d\nagent: mock\n---\nx\n")
	code, out, errOut := hub(t, nil, "run", "--agent", "r", "--max-turns", "1", "--format", "jsonl", "--cwd", t.TempDir(), "hi")
	if code != 7 || len(srv.Requests()) != 1 {
		t.Fatalf("exit %d, %d requests\nstdout %s\nstderr %s", code, len(srv.Requests()), out, errOut)
	}
}

// An untrusted project's persona never runs: hub run refuses it with the
// reason, and the model is never asked; 'hub trust' lets it run.
func TestRun_UntrustedProjectPersonaNeverRuns(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ran"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
	repo := filepath.Join(root, "repo")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, ".claude", "agents", "helper.md"), "---\nname: helper\ndescription: d\nagent: mock\n---\nx\n")
	t.Chdir(repo)
	var out, errb bytes.Buffer
	code := realMain(context.Background(), []string{"run", "--agent", "helper", "go"}, strings.NewReader(""), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "hub trust") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d, %d requests, stderr:\n%s", code, len(srv.Requests()), errb.String())
	}
	if code := realMain(context.Background(), []string{"trust"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("hub trust: exit %d", code)
	}
	out.Reset()
	if code := realMain(context.Background(), []string{"run", "--agent", "helper", "go"}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "ran\n" {
		t.Fatalf("after hub trust: exit %d stdout %q stderr:\n%s", code, out.String(), errb.String())
	}
}
