package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/transcript"
)

func TestSessions_CommandsAndErrors(t *testing.T) {
	isolate(t)
	tests := []struct {
		args    []string
		code    int
		out, er string
	}{
		{[]string{"sessions"}, exitOK, "SESSION", ""},
		{[]string{"sessions", "list", "--json"}, exitOK, "[]", ""},
		{[]string{"sessions", "show", "nope"}, exitError, "", `no session "nope"`},
		{[]string{"sessions", "show"}, exitUsage, "", "give one session id"},
		{[]string{"sessions", "export", "nope", "--format", "md"}, exitError, "", `no session "nope"`},
		{[]string{"sessions", "rm", "nope"}, exitError, "", `no session "nope"`},
		{[]string{"sessions", "frobnicate"}, exitUsage, "", "unknown subcommand"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := realMain(context.Background(), tt.args, strings.NewReader(""), &out, &errb)
			if code != tt.code || !strings.Contains(out.String(), tt.out) || !strings.Contains(errb.String(), tt.er) {
				t.Fatalf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
			}
		})
	}
}

// Transcripts that hub acp did not index (the native loop's runs, audited
// runs) are listed, shown, exported and removed like indexed sessions.
func TestSessions_Transcripts(t *testing.T) {
	isolate(t)
	w, err := transcript.Open(config.TranscriptDir(), transcript.Meta{ID: "native-1-1", Agent: "local", Cwd: "/src"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{
		`{"role":"user","content":"what is in a.txt?"}`,
		`{"role":"assistant","content":"Reading.","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}}]}`,
		`{"role":"tool","tool_call_id":"c1","content":"hello"}`,
		`{"role":"assistant","content":"It says hello."}`,
	} {
		w.Write(transcript.Record{Type: transcript.TypeMessage, Message: json.RawMessage(m)})
	}
	w.Close()
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := realMain(context.Background(), args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, out, _ := run("sessions", "list"); code != exitOK || !strings.Contains(out, "native-1-1") || !strings.Contains(out, "local") {
		t.Fatalf("list: %d %q", code, out)
	}
	code, out, _ := run("sessions", "show", "native-1-1")
	for _, want := range []string{"## User\n\nwhat is in a.txt?", "## local\n\nReading.", `- tool: read_file {"path":"a.txt"} (completed)`, "It says hello."} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("show lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := run("sessions", "export", "native-1-1", "--format", "json"); code != exitOK || !strings.Contains(out, `"type": "message"`) {
		t.Fatalf("export json: %d %q", code, out)
	}
	if code, _, errOut := run("sessions", "rm", "native-1-1"); code != exitOK {
		t.Fatalf("rm: %d %s", code, errOut)
	}
	if code, _, errOut := run("sessions", "show", "native-1-1"); code != exitError || !strings.Contains(errOut, "no session") {
		t.Fatalf("show after rm: %d %s", code, errOut)
	}
}

// hub acp's sessions in every format an older hub wrote are listed and
// exported (testdata of internal/transcript: the files as hub wrote them).
func TestSessions_OldIndexFormats(t *testing.T) {
	isolate(t)
	dir := acp.IndexDir(config.StateDir())
	old, _ := filepath.Glob(filepath.Join("..", "..", "internal", "transcript", "testdata", "old", "sessions", "*"))
	for _, f := range old {
		data, err := os.ReadFile(f)
		if err := errors.Join(err, os.MkdirAll(dir, 0o700), os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o600)); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		return realMain(context.Background(), args, strings.NewReader(""), &out, &errb), out.String()
	}
	_, list := run("sessions", "list")
	for id, title := range map[string]string{"hub_0ld5e55i0n0000000000000000": "Fix the parser", "hub_a18ab1a0f0rmat0000000000": "Tidy the lexer, twice",
		"hub_m1xed0000000000000000000": "Fix the parser", "hub_0ldest00000000000000000000": "Port the CLI"} {
		if !strings.Contains(list, id) {
			t.Errorf("list lacks %s:\n%s", id, list)
		}
		if code, out := run("sessions", "export", id); code != exitOK || !strings.Contains(out, "# "+title+"\n") || !strings.Contains(out, "## User\n\n") {
			t.Errorf("export %s: %d\n%s", id, code, out)
		}
		var recs []transcript.Record
		if code, out := run("sessions", "export", id, "--format", "json"); code != exitOK || json.Unmarshal([]byte(out), &recs) != nil || recs[0].Session == nil || recs[0].Session.ID != id {
			t.Errorf("export %s --format json: %d\n%s", id, code, out)
		}
	}
}
