package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

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
	w, err := transcript.Open(config.TranscriptDir(), transcript.Meta{ID: "native-1-1", Agent: "local", Cwd: "/src"}, nil)
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
