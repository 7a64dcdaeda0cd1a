package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

// Under every --approve, hub run refuses what must be asked (secret reads,
// calls hub cannot read), reads a call carrying a command as the command
// it is whatever kind it claims, and refuses options sharing an id.
func TestDecide_ShapesUnderApprove(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	rules, err := permission.New(config.PermissionsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	call := func(kind adapters.ToolKind, raw string, locs ...string) adapters.ToolCall {
		tc := adapters.ToolCall{ID: "t", Kind: kind, RawInput: json.RawMessage(raw)}
		for _, l := range locs {
			tc.Locations = append(tc.Locations, adapters.Location{Path: l})
		}
		return tc
	}
	dup := []adapters.PermissionOption{{ID: "x", Name: "Allow once", Kind: adapters.AllowOnce}, {ID: "x", Name: "Always", Kind: adapters.AllowAlways},
		{ID: "r", Name: "Reject", Kind: adapters.RejectOnce}}
	tests := []struct {
		name    string
		approve Approve
		tool    adapters.ToolCall
		opts    []adapters.PermissionOption
		allowed bool
	}{
		{"read .env under read-only", ApproveReadOnly, call(adapters.KindRead, `{}`, "/w/.env"), nil, false},
		{"read .env path in rawInput under all", ApproveAll, call(adapters.KindRead, `{"file_path":".env"}`), nil, false},
		{"cat .env under all", ApproveAll, call(adapters.KindExecute, `{"command":"cat .env"}`), nil, false},
		{"kind other, nothing to read, under all", ApproveAll, call(adapters.KindOther, `{"payload":"x"}`), nil, false},
		{"no kind, under all", ApproveAll, adapters.ToolCall{ID: "t"}, nil, false},
		{"kind read carrying a command under read-only", ApproveReadOnly, call(adapters.KindRead, `{"command":"touch x"}`), nil, false},
		{"argv rm -rf ~ under all", ApproveAll, call(adapters.KindExecute, `{"command":["bash","-lc","rm -rf ~"]}`), nil, false},
		{"duplicate option ids under all", ApproveAll, call(adapters.KindExecute, `{"command":"ls"}`), dup, false},
		{"plain read under read-only", ApproveReadOnly, call(adapters.KindRead, `{}`, "/w/a.go"), nil, true},
		{"ls under all", ApproveAll, call(adapters.KindExecute, `{"command":"ls"}`), nil, true},
		{"env template under read-only", ApproveReadOnly, call(adapters.KindRead, `{}`, "/w/.env.example"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := adapters.NewPermissionRequest(tt.tool, tt.opts)
			d, reason := Decide(rules, tt.approve, "/w", p)
			if d.Allowed() != tt.allowed {
				t.Fatalf("allowed = %v (%s), want %v", d.Allowed(), reason, tt.allowed)
			}
			if !tt.allowed && (reason == "" || strings.Contains(reason, "\n")) {
				t.Errorf("reason %q is not one line", reason)
			}
			if tt.opts != nil && d.OptionID == "x" {
				t.Errorf("answered with the shared id %q", d.OptionID)
			}
		})
	}
}
