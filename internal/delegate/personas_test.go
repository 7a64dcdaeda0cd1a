package delegate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/personas"
)

// A hub mcp serving an agent that runs a persona in plan or read-only
// mode (its delegation chain) binds the delegate tool's delegates, even
// under --approve all, and whatever mode the call asks for: each starts in
// plan mode (its agent has it) and its command is refused in one line
// naming the persona's mode. A persona in default mode binds none.
func TestMCP_PlanPersonaBindsItsDelegates(t *testing.T) {
	for _, tt := range []struct{ mode, want, wantMode string }{
		{personas.ModePlan, "refused", "plan"},
		{personas.ModeReadOnly, "refused", "plan"},
		{personas.ModeDefault, "removed", "default"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			reg := adapters.NewRegistry()
			helper := replay.New(scriptFile(t, `{"permission":{"tool":{"id":"t1","title":"rm build","kind":"execute"}},`+
				`"allowed":[{"event":{"type":"tool_call","tool":{"id":"t1","title":"rm build","kind":"execute","status":"completed"}}},{"event":{"type":"text","text":"removed"}}],`+
				`"rejected":[{"event":{"type":"text","text":"refused"}}]}`))
			helper.AgentName = "helper"
			reg.Register(helper)
			lead := &personas.Adapter{P: personas.Persona{Name: "lead", Description: "d", Mode: tt.mode, Trusted: true}, Backend: replay.New("")}
			d := delegation.New(delegation.Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(), Approve: conversation.ApproveAll,
				Chain: []adapters.Adapter{lead}})
			defer d.Close()
			cs, _ := connect(t, d)
			_, r := call(t, cs, "delegate", map[string]any{"agent": "helper", "prompt": "clean up", "mode": "default"})
			denied := strings.Join(r.Denied, "; ")
			if r.Answer != tt.want || (tt.want == "refused") != strings.Contains(denied, "lead is in "+tt.mode+" mode") {
				t.Fatalf("answer %q, denied %q: want %q, refused by the persona's mode %v", r.Answer, denied, tt.want, tt.want == "refused")
			}
			if starts := helper.Starts(); len(starts) != 1 || starts[0].Mode != tt.wantMode {
				t.Fatalf("the helper's starts %+v: want one in mode %q", starts, tt.wantMode)
			}
		})
	}
}

// The agents tool describes each persona with when to use it and its
// backend, the native delegate tool's list names both, and a delegation
// to a persona runs it with its prompt.
func TestMCP_DescribesAndDelegatesToPersonas(t *testing.T) {
	mock := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "Reviewed."})
	defer mock.Close()
	reg := adapters.NewRegistry()
	native := openai.New(openai.Profile{Name: "native", BaseURL: mock.URL, Model: "mock-model", Local: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second})
	reg.Register(native)
	reg.Register(&personas.Adapter{Backend: native, P: personas.Persona{Name: "reviewer", Description: "Reviews a change before merging.",
		Prompt: "You are the reviewer persona.", Trusted: true}})
	d := delegation.New(delegation.Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop()})
	defer d.Close()
	cs, _ := connect(t, d)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "agents", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out AgentsOutput
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(out.Agents, func(a delegation.AgentInfo) bool { return a.Name == "reviewer" })
	if i < 0 || out.Agents[i].Description != "Reviews a change before merging." || out.Agents[i].Backend != "native" {
		t.Fatalf("agents tool: %s", b)
	}
	names := delegation.AgentNames(d, []string{"native"})
	if !slices.Contains(names, "reviewer (Reviews a change before merging.; runs on native)") {
		t.Errorf("AgentNames = %q", names)
	}
	_, r := call(t, cs, "delegate", map[string]any{"agent": "reviewer", "prompt": "review"})
	if r.Agent != "reviewer" || !strings.Contains(r.Answer, "Reviewed.") {
		t.Errorf("result %+v", r)
	}
	if sys := mockllm.MessageText(mock.Requests()[0].Messages[0]); !strings.Contains(sys, "You are the reviewer persona.") {
		t.Errorf("system message %q lacks the persona's prompt", sys)
	}
}
