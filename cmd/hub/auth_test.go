package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// The ACP registry's CI starts hub in a fresh HOME with no agent CLI on
// PATH, as a client advertising _meta["terminal-auth"]: hub still offers a
// terminal login, 'hub login' (which asks for the agent), in each form
// the client advertised and only those.
func TestAcp_RegistryClientGetsTerminalLogin(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		caps      string
		wantTyped bool
		wantMeta  bool
	}{
		{name: "registry: _meta terminal-auth", caps: `{"_meta":{"terminal-auth":true}}`, wantMeta: true},
		{name: "zed: both", caps: `{"auth":{"terminal":true},"_meta":{"terminal_output":true,"terminal-auth":true}}`, wantTyped: true, wantMeta: true},
		{name: "auth.terminal only", caps: `{"auth":{"terminal":true}}`, wantTyped: true},
		{name: "neither", caps: `{}`},
		{name: "terminal-auth not true", caps: `{"_meta":{"terminal-auth":"yes"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			t.Setenv("HOME", t.TempDir())
			t.Setenv("PATH", "")
			in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":` + tc.caps + `}}` + "\n"
			code, out, errOut := hub(t, strings.NewReader(in), "acp")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var res struct {
				Result struct {
					AuthMethods []struct {
						ID   string   `json:"id"`
						Type string   `json:"type"`
						Args []string `json:"args"`
						Meta map[string]struct {
							Label   string   `json:"label"`
							Command string   `json:"command"`
							Args    []string `json:"args"`
						} `json:"_meta"`
					} `json:"authMethods"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &res); err != nil {
				t.Fatalf("initialize answer %q: %v", out, err)
			}
			m := res.Result.AuthMethods
			if !tc.wantTyped && !tc.wantMeta {
				if len(m) != 0 {
					t.Fatalf("offered %+v to a client that runs no terminal auth", m)
				}
				return
			}
			if len(m) == 0 {
				t.Fatal("no auth method offered")
			}
			login := m[0]
			if login.ID != "login" || login.Meta["terminal-auth"].Label == "" && tc.wantMeta {
				t.Fatalf("first method %+v, want hub login", login)
			}
			if typed := login.Type == "terminal" && slices.Equal(login.Args, []string{"login"}); typed != tc.wantTyped {
				t.Errorf("type terminal with args [login]: %v, want %v (%+v)", typed, tc.wantTyped, login)
			}
			ta, hasMeta := login.Meta["terminal-auth"]
			if hasMeta != tc.wantMeta {
				t.Errorf("_meta terminal-auth present: %v, want %v", hasMeta, tc.wantMeta)
			}
			if tc.wantMeta && (ta.Command != self || !slices.Equal(ta.Args, []string{"login"})) {
				t.Errorf("terminal-auth runs %q %q, want %q [login]", ta.Command, ta.Args, self)
			}
		})
	}
}
