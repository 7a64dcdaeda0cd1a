package delegate

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation/delegation"
)

// recorder is an agent that keeps the options of each session it starts.
type recorder struct {
	adapters.Adapter
	mu   sync.Mutex
	opts []adapters.SessionOptions
}

func (r *recorder) Start(ctx context.Context, so adapters.SessionOptions) (adapters.Session, error) {
	r.mu.Lock()
	r.opts = append(r.opts, so)
	r.mu.Unlock()
	return r.Adapter.Start(ctx, so)
}

// Whatever JSON the calling agent writes (other letter case, a key twice,
// fields the tool does not have, values of another type, flag-like
// words), the delegate starts in the workspace with the approval policy
// and a mode that keeps hub's permission requests, or not at all, and a
// refusal is one line; a plain request and a prompt that looks like a
// flag still run.
func TestMCP_ArgumentsNeverWiden(t *testing.T) {
	tests := []struct {
		name, args string
		runs       bool
	}{
		{"plain", `{"agent":"replay","prompt":"review the change"}`, true},
		{"plan mode in a directory inside", `{"agent":"replay","prompt":"review","mode":"plan","cwd":"."}`, true},
		{"a prompt that looks like a flag", `{"agent":"replay","prompt":"--dangerously-skip-permissions"}`, true},
		{"a prompt with -c", `{"agent":"replay","prompt":"-c sandbox_mode=danger-full-access"}`, true},
		{"mode in capitals", `{"agent":"replay","prompt":"x","MODE":"bypassPermissions"}`, false},
		{"mode in mixed case", `{"agent":"replay","prompt":"x","Mode":"acceptEdits"}`, false},
		{"mode twice", `{"agent":"replay","prompt":"x","mode":"plan","mode":"bypassPermissions"}`, false},
		{"mode twice, the narrow last", `{"agent":"replay","prompt":"x","mode":"yolo","mode":"plan"}`, true},
		{"fields the tool lacks", `{"agent":"replay","prompt":"x","approve":"all","yolo":true,"sandbox":"off","fallback":["codex"],
			"persona":"root","additionalDirectories":["/"],"dangerouslySkipPermissions":true}`, false},
		{"a bool for a mode", `{"agent":"replay","prompt":"x","mode":true}`, false},
		{"a mode as a flag", `{"agent":"replay","prompt":"x","mode":"--yolo"}`, false},
		{"a model as a flag", `{"agent":"replay","prompt":"x","model":"--yolo"}`, false},
		{"a model with a NUL", `{"agent":"replay","prompt":"x","model":"m\u0000--yolo"}`, false},
		{"cwd above", `{"agent":"replay","prompt":"x","cwd":".."}`, false},
		{"cwd at the root", `{"agent":"replay","prompt":"x","cwd":"/"}`, false},
		{"cwd by a very long climb", `{"agent":"replay","prompt":"x","cwd":"` + strings.Repeat("../", 2000) + `etc"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := filepath.EvalSymlinks(t.TempDir()) // macOS's temp dir is under a link
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{Adapter: replay.New(scriptFile(t, `{"event":{"type":"text","text":"done"}}`))}
			reg := adapters.NewRegistry()
			reg.Register(rec)
			d := delegation.New(delegation.Options{Registry: reg, Cwd: ws, Log: zerolog.Nop()})
			defer d.Close()
			cs, _ := connect(t, d)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delegate", Arguments: json.RawMessage(tt.args)})
			rec.mu.Lock()
			defer rec.mu.Unlock()
			for _, so := range rec.opts {
				if so.Cwd != ws || (so.Mode != "" && so.Mode != "plan") || so.Access != adapters.AccessAskFirst || len(so.AddDirs) > 0 {
					t.Fatalf("the delegate started with cwd %q, mode %q, access %q, dirs %q", so.Cwd, so.Mode, so.Access, so.AddDirs)
				}
			}
			switch {
			case tt.runs && (err != nil || res.IsError || len(rec.opts) != 1):
				t.Fatalf("error %v, result %+v, %d starts; want the delegate to run", err, res, len(rec.opts))
			case !tt.runs && len(rec.opts) != 0:
				t.Fatalf("the delegate started %d times; want it refused", len(rec.opts))
			case !tt.runs && err == nil && (!res.IsError || strings.Contains(res.Content[0].(*mcp.TextContent).Text, "\n")):
				t.Fatalf("result %+v; want a one-line tool error", res)
			}
		})
	}
}
