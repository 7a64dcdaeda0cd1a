package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
