package delegate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
)

// connect serves d over in-memory transports and returns a client session
// whose progress notifications arrive on the channel.
func connect(t testing.TB, d *delegation.Delegator) (*mcp.ClientSession, <-chan string) {
	t.Helper()
	progress := make(chan string, 64)
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv := NewServer(d, "test", zerolog.Nop())
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- r.Params.Message:
			default: // the test reads only the first ones
			}
		}})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, progress
}

// awaitProgress waits for the notification want; the SDK may deliver
// notifications after the call's result.
func awaitProgress(t testing.TB, progress <-chan string, want string) {
	t.Helper()
	var got []string
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-progress:
			if m == want {
				return
			}
			got = append(got, m)
		case <-timeout:
			t.Errorf("progress notifications %q lack %q", got, want)
			return
		}
	}
}

func call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, delegation.Result) {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	p.SetProgressToken("p1")
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var r delegation.Result
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &r)
	return res, r
}

func scriptFile(t *testing.T, lines ...string) string {
	p := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMCP_ListsToolsAndDelegatesToTheReplayAgent(t *testing.T) {
	reg := adapters.NewRegistry()
	reg.Register(replay.New(scriptFile(t,
		`{"event":{"type":"session_info","session":{"agentSessionId":"r-1"}}}`,
		`{"event":{"type":"tool_call","tool":{"id":"t1","title":"Edit a.go","kind":"edit","status":"completed","locations":[{"path":"/repo/a.go"}]}}}`,
		`{"event":{"type":"text","text":"Done: a.go fixed."}}`)))
	d := delegation.New(delegation.Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop()})
	defer d.Close()
	cs, progress := connect(t, d)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "agents,continue,delegate" {
		t.Fatalf("tools %v", names)
	}
	agents, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "agents", Arguments: map[string]any{}})
	if b, _ := json.Marshal(agents.StructuredContent); !strings.Contains(string(b), `"name":"replay"`) {
		t.Fatalf("agents tool: %s", b)
	}
	res, r := call(t, cs, "delegate", map[string]any{"agent": "replay", "prompt": "fix a.go"})
	if res.IsError || r.Answer != "Done: a.go fixed." || r.AgentSessionID != "r-1" || r.Session == "" ||
		len(r.ToolCalls) != 1 || r.ToolCalls[0].Title != "Edit a.go" || !slices.Equal(r.FilesChanged, []string{"/repo/a.go"}) {
		t.Fatalf("delegate: error %v result %+v", res.IsError, r)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != "Done: a.go fixed." {
		t.Fatalf("text content %q", txt)
	}
	awaitProgress(t, progress, "replay: Edit a.go")
	if _, r2 := call(t, cs, "continue", map[string]any{"session": r.Session, "prompt": "again"}); r2.Session != r.Session {
		t.Errorf("continue answered session %q, want %q", r2.Session, r.Session)
	}
	if res, _ := call(t, cs, "continue", map[string]any{"session": "nope", "prompt": "x"}); !res.IsError {
		t.Error("continue on an unknown session is not a tool error")
	}
	if res, _ := call(t, cs, "delegate", map[string]any{"agent": "ghost", "prompt": "x"}); !res.IsError {
		t.Error("an unknown agent is not a tool error")
	}
}

// The native loop on the mock provider, delegated to: its tool call is
// answered by --approve, and the summary carries usage. The call is a
// write, not a shell command: the shell differs by OS (Wine has none).
func TestMCP_DelegatesToTheNativeLoop(t *testing.T) {
	mock := mockllm.NewOpenAIServer(
		mockllm.OpenAITurn{Text: "Checking.", ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"out.txt","content":"hi\n"}`}}},
		mockllm.OpenAITurn{Text: "Wrote out.txt."},
	)
	defer mock.Close()
	reg := adapters.NewRegistry()
	reg.Register(openai.New(openai.Profile{Name: "native", BaseURL: mock.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		openai.Options{IdleTimeout: 10 * time.Second}))
	for _, tc := range []struct {
		approve conversation.Approve
		ran     bool
	}{{conversation.ApproveAll, true}, {conversation.ApproveReadOnly, false}} {
		cwd := t.TempDir()
		if !tc.ran {
			mock.Add(mockllm.OpenAITurn{Text: "Checking.", ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"out.txt","content":"hi\n"}`}}},
				mockllm.OpenAITurn{Text: "Not allowed."})
		}
		d := delegation.New(delegation.Options{Registry: reg, Cwd: cwd, Approve: tc.approve, Log: zerolog.Nop()})
		cs, _ := connect(t, d)
		_, r := call(t, cs, "delegate", map[string]any{"agent": "native", "prompt": "write out.txt"})
		_, err := os.Stat(filepath.Join(cwd, "out.txt"))
		if (err == nil) != tc.ran || len(r.ToolCalls) != 1 || r.Usage == nil || (len(r.Denied) > 0) == tc.ran {
			t.Errorf("--approve %s: ran %v, result %+v", tc.approve, err == nil, r)
		}
		d.Close()
	}
}

// records is a zerolog writer that hands each record to a channel.
type records chan map[string]any

func (r records) Write(p []byte) (int, error) {
	var rec map[string]any
	if err := json.Unmarshal(p, &rec); err == nil {
		select {
		case r <- rec:
		default:
		}
	}
	return len(p), nil
}

// The MCP SDK's own records (here the server's info on a session) reach
// hub's log instead of being dropped.
func TestNewServer_SDKRecordsReachTheLog(t *testing.T) {
	recs := make(records, 64)
	log := zerolog.New(recs).Level(zerolog.InfoLevel).With().Str("test", "sdk").Logger()
	d := delegation.New(delegation.Options{Registry: adapters.NewRegistry(), Cwd: t.TempDir(), Log: zerolog.Nop()})
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ss, err := NewServer(d, "test", log).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	select {
	case rec := <-recs:
		if rec["test"] != "sdk" || rec["level"] == nil {
			t.Errorf("record %v did not come through hub's logger", rec)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the SDK logged nothing to hub's logger")
	}
}
