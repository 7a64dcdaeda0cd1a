package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// projectWithPersona makes a repository under root whose .hub/agents
// holds persona name on the mock provider.
func projectWithPersona(t *testing.T, root, dir, name string) string {
	t.Helper()
	repo := filepath.Join(root, dir)
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, ".hub", "agents", name+".md"),
		"---\nname: "+name+"\ndescription: Helps here.\nagent: mock\n---\nYou are the project's helper.\n")
	return repo
}

// hub run --cwd DIR finds DIR's project personas, not only those of the
// directory hub started in; an untrusted one is refused with the reason.
func TestRun_PersonaOfTheCwdsProject(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ran"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
	chdir(t, root)
	repo := projectWithPersona(t, root, "repo", "helper")
	code, out, errOut := hub(t, nil, "run", "--cwd", repo, "--agent", "helper", "go")
	if code != exitUsage || !strings.Contains(errOut, "hub trust") || len(srv.Requests()) != 0 {
		t.Fatalf("untrusted: exit %d, %d requests, stdout %q stderr:\n%s", code, len(srv.Requests()), out, errOut)
	}
	if code, _, errOut := hub(t, nil, "trust", repo); code != exitOK {
		t.Fatalf("hub trust: exit %d %s", code, errOut)
	}
	code, out, errOut = hub(t, nil, "run", "--cwd", repo, "--agent", "helper", "go")
	if code != exitOK || out != "ran\n" {
		t.Fatalf("trusted: exit %d stdout %q stderr:\n%s", code, out, errOut)
	}
	if sys := mockllm.MessageText(srv.Requests()[0].Messages[0]); !strings.Contains(sys, "You are the project's helper.") {
		t.Errorf("system message %q lacks the persona's prompt", sys)
	}
}

// An editor session opened in another repository than hub's launch
// directory offers and runs that repository's trusted personas; an
// untrusted repository's persona is listed as untrusted, and choosing it
// is refused with the reason, before any model is asked.
func TestAcp_PersonasOfTheSessionsCwd(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ran"})
	defer srv.Close()
	root := isolate(t)
	addUserConfig(t, root, fmt.Sprintf("[providers.mock]\nbase_url = %q\nmodel = \"m\"\n", srv.URL))
	chdir(t, root)
	trusted := projectWithPersona(t, root, "trusted", "helper")
	untrusted := projectWithPersona(t, root, "untrusted", "helper")
	if code, _, errOut := hub(t, nil, "trust", trusted); code != exitOK {
		t.Fatalf("hub trust: exit %d %s", code, errOut)
	}
	c := startACP(t, "--agent", "mock")
	defer c.stop()
	c.must("initialize", map[string]any{"protocolVersion": 1})
	tests := []struct {
		name    string
		cwd     string
		offered bool
	}{{"trusted", trusted, true}, {"untrusted", untrusted, false}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sess struct {
				SessionID     string
				ConfigOptions []struct {
					ID      string
					Options []struct{ Value, Name, Description string }
				}
			}
			if err := json.Unmarshal(c.must("session/new", map[string]any{"cwd": tc.cwd, "mcpServers": []any{}}), &sess); err != nil {
				t.Fatal(err)
			}
			var agents []string
			var helper string // its option's name
			for _, o := range sess.ConfigOptions {
				for _, v := range o.Options {
					if o.ID == "agent" {
						agents = append(agents, v.Value)
					}
					if o.ID == "agent" && v.Value == "helper" {
						helper = v.Name
					}
				}
			}
			// Listed either way; an untrusted one marked as such.
			if !slices.Contains(agents, "helper") || strings.Contains(helper, "untrusted") == tc.offered {
				t.Fatalf("agent select %v: helper listed as %q, want it offered %v", agents, helper, tc.offered)
			}
			_, errObj := c.call("session/set_config_option", map[string]any{"sessionId": sess.SessionID, "configId": "agent", "value": "helper"})
			if !tc.offered {
				if errObj == nil || !strings.Contains(string(errObj), "hub trust") {
					t.Fatalf("choosing the untrusted persona: %s, want a refusal naming 'hub trust'", errObj)
				}
				return
			}
			if errObj != nil {
				t.Fatalf("choosing the persona: %s", errObj)
			}
			c.must("session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
			reqs := srv.Requests()
			if len(reqs) != 1 || !strings.Contains(mockllm.MessageText(reqs[0].Messages[0]), "You are the project's helper.") {
				t.Fatalf("%d model requests; the first's system message should be the persona's prompt", len(reqs))
			}
		})
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model requests, want the trusted persona's one", n)
	}
}

// hub doctor --json checks each persona file as the text report does:
// its name, backend, state and problems; a file hub cannot use is listed
// with why.
func TestDoctor_JSONChecksPersonas(t *testing.T) {
	root := isolate(t)
	addUserConfig(t, root, "[providers.mock]\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\n")
	agents := filepath.Join(root, "xdg_config_home", "hub", "agents")
	writeFile(t, filepath.Join(agents, "reviewer.md"), "---\nname: reviewer\ndescription: Reviews.\nagent: mock\ntools: Read, Teleport\n---\nx\n")
	writeFile(t, filepath.Join(agents, "ghost.md"), "---\nname: ghost\ndescription: d\nagent: nowhere\n---\nx\n")
	writeFile(t, filepath.Join(agents, "bad.md"), "no front matter\n")
	repo := projectWithPersona(t, root, "repo", "helper")
	chdir(t, repo)
	code, out, errOut := hub(t, nil, "doctor", "--json", "--timeout", "3s")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Personas []struct {
			Name, File, Backend, State string
			Problems                   []string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	got := map[string]string{}
	for _, p := range r.Personas {
		key := cmp.Or(p.Name, filepath.Base(p.File))
		got[key] = p.State + " on " + p.Backend + ": " + strings.Join(p.Problems, "; ")
	}
	tests := []struct{ key, state, problem string }{
		{"reviewer", "ready on mock", `tool "Teleport"`},
		{"ghost", "cannot run on nowhere", "nowhere"},
		{"helper", "untrusted on mock", "hub trust"},
		{"bad.md", "not used on ", "front matter"},
	}
	for _, tc := range tests {
		if g := got[tc.key]; !strings.HasPrefix(g, tc.state+":") || !strings.Contains(g, tc.problem) {
			t.Errorf("%s: %q, want state %q and a problem naming %q", tc.key, g, tc.state, tc.problem)
		}
	}
}

// hub agents and hub doctor give every persona the same state: ready,
// untrusted, cannot run (an agent hub does not know, a mode its agent
// lacks) or not ready (its agent is not installed here).
func TestPersonaState_AgentsAndDoctorAgree(t *testing.T) {
	root := isolate(t)
	addUserConfig(t, root, "[providers.mock]\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\n")
	agents := filepath.Join(root, "xdg_config_home", "hub", "agents")
	persona := func(name, agent, mode string) {
		writeFile(t, filepath.Join(agents, name+".md"), "---\nname: "+name+"\ndescription: d\nagent: "+agent+"\nmode: "+mode+"\n---\nx\n")
	}
	persona("reviewer", "mock", "default")
	persona("ghost", "nowhere", "default")
	persona("turbo", "mock", "turbo")
	persona("absent", "claude", "default") // PATH holds no claude
	chdir(t, projectWithPersona(t, root, "repo", "helper"))
	want := map[string]string{"reviewer": "ready", "ghost": "cannot run", "turbo": "cannot run", "absent": "not ready", "helper": "untrusted"}

	got := map[string][2]string{}
	_, out, _ := hub(t, nil, "agents", "--json")
	var rows []struct {
		Name    string
		Persona *struct{ State string }
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("hub agents: %v\n%s", err, out)
	}
	for _, r := range rows {
		if r.Persona != nil {
			got[r.Name] = [2]string{r.Persona.State}
		}
	}
	_, out, _ = hub(t, nil, "doctor", "--json", "--timeout", "3s")
	var r struct {
		Personas []struct{ Name, State string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("hub doctor: %v\n%s", err, out)
	}
	for _, p := range r.Personas {
		if p.Name != "" {
			got[p.Name] = [2]string{got[p.Name][0], p.State}
		}
	}
	for name, state := range want {
		if g := got[name]; g != [2]string{state, state} {
			t.Errorf("%s: hub agents says %q, hub doctor %q; want %q", name, g[0], g[1], state)
		}
	}
}

// hub doctor --agent PERSONA is that persona's check as the full report
// tells it, in text and in JSON, and exits 1 when it cannot run.
func TestDoctor_AgentPersonaIsItsCheck(t *testing.T) {
	root := isolate(t)
	addUserConfig(t, root, "[providers.mock]\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\n")
	agents := filepath.Join(root, "xdg_config_home", "hub", "agents")
	writeFile(t, filepath.Join(agents, "reviewer.md"), "---\nname: reviewer\ndescription: Reviews.\nagent: mock\ntools: Read, Teleport\n---\nx\n")
	writeFile(t, filepath.Join(agents, "ghost.md"), "---\nname: ghost\ndescription: d\nagent: nowhere\n---\nx\n")
	tests := []struct {
		name, format string
		code         int
		want         string
	}{
		{"reviewer", "text", exitOK, "  reviewer  on mock  ready  "},
		{"reviewer", "json", exitOK, `"state": "ready"`},
		{"ghost", "text", exitError, "  ghost  on nowhere  cannot run  "},
		{"ghost", "json", exitError, `"state": "cannot run"`},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/"+tc.format, func(t *testing.T) {
			args := []string{"doctor", "--agent", tc.name}
			if tc.format == "json" {
				args = append(args, "--json")
			}
			code, out, errOut := hub(t, nil, args...)
			noAgents := tc.format == "text" || strings.Contains(out, `"agents": []`) // the schema's list, empty: not null
			if code != tc.code || !strings.Contains(out, tc.want) || !noAgents || strings.Count(out, "on mock")+strings.Count(out, "on nowhere") > 1 {
				t.Fatalf("exit %d (want %d)\nstdout (want %q):\n%s\nstderr:\n%s", code, tc.code, tc.want, out, errOut)
			}
		})
	}
}
