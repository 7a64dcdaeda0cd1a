package personas

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// A persona in plan or read-only mode anywhere in the chain binds the
// delegate: it starts in plan or read-only mode when its agent has one,
// whatever mode was asked for, else in its default; nothing runs unasked,
// no write tool is offered, and the gate refuses every write and command
// (a command under any tool name), in a line naming the persona and its
// mode. A persona delegate of another mode cannot run so. A persona in
// another mode binds no mode.
func TestDelegated_PlanModeBindsTheDelegate(t *testing.T) {
	planner := &Adapter{P: Persona{Name: "planner", Mode: ModePlan, Trusted: true}, Backend: fakeBackend{}}
	reader := &Adapter{P: Persona{Name: "reader", Mode: ModeReadOnly, Trusted: true}, Backend: fakeBackend{}}
	plain := &Adapter{P: Persona{Name: "plain", Trusted: true}, Backend: fakeBackend{}}
	for _, tc := range []struct {
		name     string
		chain    []adapters.Adapter
		delegate adapters.Adapter
		want     string // the delegate's mode; "-": not bound (the mode asked for stays)
		err      bool
	}{
		{"plan mode it has", []adapters.Adapter{planner}, fakeBackend{modes: []string{"default", "plan"}}, "plan", false},
		{"read-only mode it has", []adapters.Adapter{reader}, fakeBackend{modes: []string{"plan", "read-only"}}, "read-only", false},
		{"plan on an agent with read-only only", []adapters.Adapter{planner}, fakeBackend{modes: []string{"auto", "read-only"}}, "read-only", false},
		{"no such mode: its default", []adapters.Adapter{planner}, fakeBackend{modes: []string{"default", "acceptEdits"}}, "", false},
		{"the root binds a delegate's delegate", []adapters.Adapter{planner, fakeBackend{}}, fakeBackend{}, "", false},
		{"a persona delegate in plan mode", []adapters.Adapter{reader}, &Adapter{P: Persona{Name: "p2", Mode: ModePlan, Trusted: true}, Backend: fakeBackend{}}, "", false},
		{"a persona delegate of another mode", []adapters.Adapter{planner}, &Adapter{P: Persona{Name: "editor", Mode: "acceptEdits", Trusted: true}, Backend: fakeBackend{}}, "", true},
		{"a persona in default mode binds none", []adapters.Adapter{plain}, fakeBackend{modes: []string{"acceptEdits"}}, "-", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen *adapters.PermissionRequest
			so := adapters.SessionOptions{Cwd: t.TempDir(), Mode: "acceptEdits", Permission: func(_ context.Context, req *adapters.PermissionRequest) adapters.PermissionDecision {
				seen = req
				return adapters.PermissionDecision{Kind: adapters.AllowOnce}
			}}
			err := Delegated(tc.chain, tc.delegate, &so)
			if tc.err {
				if !errors.Is(err, adapters.ErrUnsupported) || !strings.Contains(err.Error(), "planner") {
					t.Fatalf("error %v, want one naming the persona whose mode binds", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "-" {
				if so.Mode != "acceptEdits" || so.Access != adapters.AccessAgentDefault || so.Tools != nil {
					t.Fatalf("mode %q, access %q, tools %+v: want the options as asked", so.Mode, so.Access, so.Tools)
				}
				return
			}
			if so.Mode != tc.want || so.Access != adapters.AccessAskFirst || so.Tools.Writes() {
				t.Fatalf("mode %q, access %q, tools %+v: want mode %q, ask first, no write tool", so.Mode, so.Access, so.Tools, tc.want)
			}
			for _, r := range []struct {
				name  string
				kind  adapters.ToolKind
				input string
				deny  bool
			}{
				{"Bash", adapters.KindExecute, `{"command":"ls"}`, true},
				{"run", adapters.KindOther, `{"command":"rm -rf build"}`, true},
				{"Edit", adapters.KindEdit, `{"file_path":"a.go"}`, true},
				{"Delete", adapters.KindDelete, `{"path":"a.go"}`, true},
				{"Move", adapters.KindMove, `{"path":"a.go"}`, true},
				{"Read", adapters.KindRead, `{"file_path":"a.go"}`, false},
				{"Grep", adapters.KindSearch, `{"pattern":"x"}`, false},
			} {
				seen = nil
				so.Permission(context.Background(), permReq(r.name, r.kind, r.input))
				if (seen.Refusal != nil) != r.deny {
					t.Errorf("%s: refusal %+v, want refused %v", r.name, seen.Refusal, r.deny)
				}
				if seen.Refusal != nil && (!strings.Contains(seen.Refusal.Reason, "persona planner") && !strings.Contains(seen.Refusal.Reason, "persona reader") ||
					!strings.Contains(seen.Refusal.Reason, " mode")) {
					t.Errorf("%s: refusal %q, want the persona and its mode named", r.name, seen.Refusal.Reason)
				}
			}
		})
	}
}
