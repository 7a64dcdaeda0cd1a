package personas

import (
	"context"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// fakeBackend is an agent with the given modes that is always ready.
type fakeBackend struct{ modes []string }

func (f fakeBackend) Name() string { return "fake" }
func (f fakeBackend) Capabilities() adapters.Capabilities {
	var c adapters.Capabilities
	for _, m := range f.modes {
		c.Modes = append(c.Modes, adapters.Option{ID: m})
	}
	return c
}
func (f fakeBackend) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	return nil, adapters.ErrUnsupported
}

// Doctor's check: trust, the backend, tools hub does not know, and a mode
// the backend lacks (plan and read-only are hub's, so only a note).
func TestCheck_NamesWhatCannotRun(t *testing.T) {
	tests := []struct {
		name    string
		p       Persona
		backend adapters.Adapter
		ok      bool
		want    string // a problem that must be listed ("" : none)
	}{
		{"fine", Persona{Name: "a", Trusted: true, Tools: []string{"Read", "grep", "mcp__gh__pr", "TodoWrite"}}, fakeBackend{}, true, ""},
		{"untrusted", Persona{Name: "a", Untrusted: "run 'hub trust'"}, fakeBackend{}, false, "hub trust"},
		{"no backend", Persona{Name: "a", Agent: "nope", Trusted: true}, nil, false, `"nope"`},
		{"unknown tool", Persona{Name: "a", Trusted: true, Tools: []string{"Teleport"}}, fakeBackend{}, true, `"Teleport"`},
		{"backend's own mode", Persona{Name: "a", Trusted: true, Mode: "acceptEdits"}, fakeBackend{modes: []string{"acceptEdits"}}, true, ""},
		{"mode it lacks", Persona{Name: "a", Trusted: true, Mode: "turbo"}, fakeBackend{modes: []string{"default"}}, false, "modes are default"},
		{"bypass mode", Persona{Name: "a", Trusted: true, Mode: "bypassPermissions"}, fakeBackend{modes: []string{"bypassPermissions"}}, true, "is ignored"},
		{"plan where it lacks", Persona{Name: "a", Trusted: true, Mode: "plan"}, fakeBackend{}, true, "refuses its writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Adapter{P: tt.p, Backend: tt.backend}
			problems, ok := Check(a)
			got := strings.Join(problems, "\n")
			if ok != tt.ok || (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Check = %v %q, want %v and %q", ok, problems, tt.ok, tt.want)
			}
		})
	}
}
