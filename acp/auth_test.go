package acp

import (
	"encoding/json"
	"testing"

	"github.com/hubdev/hub/acp/schema"
)

// Each form of a terminal login goes only to a client that advertised
// it: type "terminal" for auth.terminal, _meta["terminal-auth"] for the
// pre-stabilization capability; a method the client runs in neither form
// is left out.
func TestOfferedAuth_FormsTheClientAdvertised(t *testing.T) {
	all := func() []schema.AuthMethod {
		return []schema.AuthMethod{
			{ID: "login", Name: "Log in", Type: "terminal", Args: []string{"login"},
				Meta: schema.Meta{schema.TerminalAuthMeta: schema.TerminalAuth{Label: "Log in", Command: "/bin/hub", Args: []string{"login"}}}},
			{ID: "typed-only", Name: "Typed", Type: "terminal", Args: []string{"x"}},
		}
	}
	tests := []struct {
		name string
		caps string
		want string
	}{
		{"neither", `{}`, `[]`},
		{"auth.terminal false", `{"auth":{"terminal":false}}`, `[]`},
		{"terminal-auth not a bool", `{"_meta":{"terminal-auth":"true"}}`, `[]`},
		{"auth.terminal", `{"auth":{"terminal":true}}`,
			`[{"id":"login","name":"Log in","type":"terminal","args":["login"]},{"id":"typed-only","name":"Typed","type":"terminal","args":["x"]}]`},
		{"_meta terminal-auth", `{"_meta":{"terminal-auth":true}}`,
			`[{"id":"login","name":"Log in","_meta":{"terminal-auth":{"label":"Log in","command":"/bin/hub","args":["login"]}}}]`},
		{"both", `{"auth":{"terminal":true},"_meta":{"terminal-auth":true}}`,
			`[{"id":"login","name":"Log in","type":"terminal","args":["login"],"_meta":{"terminal-auth":{"label":"Log in","command":"/bin/hub","args":["login"]}}},{"id":"typed-only","name":"Typed","type":"terminal","args":["x"]}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c schema.ClientCapabilities
			if err := json.Unmarshal([]byte(tc.caps), &c); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(offeredAuth(c, all))
			if err != nil || string(b) != tc.want {
				t.Errorf("offered %s (%v)\nwant    %s", b, err, tc.want)
			}
		})
	}
	if m := offeredAuth(schema.ClientCapabilities{Auth: &schema.AuthCapabilities{Terminal: true}}, nil); m == nil || len(m) != 0 {
		t.Errorf("no methods: %v, want []", m)
	}
}
