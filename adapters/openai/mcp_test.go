package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// The test binary doubles as an MCP server (HUB_TEST_MCP_SERVER=1) with
// one tool, echo, that appends each call to $HUB_TEST_MCP_LOG.
func TestMain(m *testing.M) {
	if os.Getenv("HUB_TEST_MCP_SERVER") == "1" {
		s := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, nil)
		type in struct {
			Text string `json:"text" jsonschema:"what to echo"`
		}
		mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, any, error) {
			f, _ := os.OpenFile(os.Getenv("HUB_TEST_MCP_LOG"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			_, _ = f.WriteString(i.Text + "\n")
			_ = f.Close()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + i.Text}}}, nil, nil
		})
		_ = s.Run(context.Background(), &mcp.StdioTransport{})
		os.Exit(0)
	}
	proctest.Main(m, nil)
}

func TestSession_MCPToolsAskedAndObeyed(t *testing.T) {
	for _, decision := range []string{"allow_once", "reject_once"} {
		t.Run(decision, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "calls")
			srv := mockllm.NewOpenAIServer(
				mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "mcp__fake__echo", Args: `{"text":"hi"}`}}},
				mockllm.OpenAITurn{Text: "done"})
			defer srv.Close()
			before := proc.Live()
			a := New(Profile{Name: "t", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000}, Options{IdleTimeout: 10 * time.Second})
			asked, cwd := 0, t.TempDir()
			gate := newGate(t, cwd).answer(func(*adapters.PermissionRequest) string { asked++; return decision })
			s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: cwd, Permission: gate.ask, MCPServers: []adapters.MCPServer{
				{Name: "fake", Type: "stdio", Command: os.Args[0], Env: map[string]string{"HUB_TEST_MCP_SERVER": "1", "HUB_TEST_MCP_LOG": log}},
				{Name: "gone", Type: "stdio", Command: "/no/such/mcp-server"}}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("echo hi"))
			if err != nil {
				t.Fatal(err)
			}
			warned := false
			for ev := range ch {
				switch ev.Type {
				case adapters.EventPermission:
					t.Fatalf("a permission request passed the gate: %+v", ev.Permission.Tool)
				case adapters.EventError:
					warned = warned || strings.Contains(ev.Error.Message, "MCP server gone")
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || asked != 1 || !warned {
				t.Fatalf("%d requests, %d permission requests, warned about the missing server %v", len(reqs), asked, warned)
			}
			if !strings.Contains(string(reqs[0].Body), `"name":"mcp__fake__echo"`) || !strings.Contains(string(reqs[0].Body), `"text"`) {
				t.Fatalf("first request does not offer the MCP tool with its schema:\n%s", reqs[0].Body)
			}
			last := reqs[1].Messages[len(reqs[1].Messages)-1]
			calls, _ := os.ReadFile(log)
			switch decision {
			case "allow_once":
				if mockllm.MessageText(last) != "echo: hi" || string(calls) != "hi\n" {
					t.Fatalf("tool result %q, server calls %q", mockllm.MessageText(last), calls)
				}
			default:
				if !strings.Contains(mockllm.MessageText(last), "rejected") || len(calls) != 0 {
					t.Fatalf("rejected call: result %q, server calls %q", mockllm.MessageText(last), calls)
				}
			}
			_ = s.Close()
			if n := proc.Live(); n != before {
				t.Fatalf("%d MCP server processes outlive the session", n-before)
			}
		})
	}
}

// Servers from hub's config reach every session; the session's own server
// of the same name wins.
func TestSession_MCPServersFromConfig(t *testing.T) {
	srv := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "ok"})
	defer srv.Close()
	fake := adapters.MCPServer{Name: "fake", Type: "stdio", Command: os.Args[0], Env: map[string]string{"HUB_TEST_MCP_SERVER": "1", "HUB_TEST_MCP_LOG": filepath.Join(t.TempDir(), "log")}}
	a := New(Profile{Name: "t", BaseURL: srv.URL, Model: "mock-model", Local: true, Stream: true, ContextWindow: 100000},
		Options{IdleTimeout: 10 * time.Second, MCPServers: []adapters.MCPServer{fake, {Name: "mine", Type: "stdio", Command: "/no/such/server"}}})
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), MCPServers: []adapters.MCPServer{
		{Name: "mine", Type: "stdio", Command: os.Args[0], Env: fake.Env}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, _ := fixture.Prompt(context.Background(), s, adapters.TextPrompt("hi"))
	for ev := range ch {
		if ev.Type == adapters.EventError {
			t.Fatalf("warning: %s (the session's own server should replace the configured one)", ev.Error.Message)
		}
	}
	body := string(srv.Requests()[0].Body)
	for _, tool := range []string{"mcp__fake__echo", "mcp__mine__echo"} {
		if !strings.Contains(body, `"name":"`+tool+`"`) {
			t.Fatalf("request does not offer %s:\n%s", tool, body)
		}
	}
}

// rawMCP is a streamable-HTTP MCP server whose tools/list carries a null
// tool next to a good one; the SDK client drops the null one and logs it.
func rawMCP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil || msg.ID == nil {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	var result any = map[string]any{}
	switch msg.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": msg.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "raw", "version": "1"}}
	case "tools/list":
		result = map[string]any{"tools": []any{nil, map[string]any{"name": "ok", "inputSchema": map[string]any{"type": "object"}}}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
}

// The MCP SDK client's own records reach hub's log, naming the server.
func TestStartMCP_SDKRecordsReachTheLog(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(rawMCP))
	defer srv.Close()
	var buf bytes.Buffer
	m := startMCP(context.Background(), []adapters.MCPServer{{Name: "raw", Type: "http", URL: srv.URL}}, zerolog.New(&buf))
	defer m.close()
	if len(m.warnings) != 0 || len(m.tools) != 1 {
		t.Fatalf("warnings %v, tools %v: want the one good tool", m.warnings, m.tools)
	}
	var rec map[string]any
	if err := json.Unmarshal(bytes.SplitN(buf.Bytes(), []byte("\n"), 2)[0], &rec); err != nil {
		t.Fatalf("no SDK record in hub's log: %q", buf.Bytes())
	}
	if rec["mcp_server"] != "raw" || rec["level"] != "error" {
		t.Errorf("record %v, want an error naming mcp_server raw", rec)
	}
}
