package delegation

import (
	"context"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
)

// A delegate gets only the MCP servers its agent takes (conversation.MCPFor),
// as hub acp's and hub run's agents do: a stdio server (hub's own, to
// delegate further) never reaches an agent without stdio MCP.
func TestDelegate_MCPServersByCapability(t *testing.T) {
	stdio := adapters.MCPServer{Name: "hub", Type: "stdio", Command: "hub", Args: []string{"mcp"}}
	web := adapters.MCPServer{Name: "docs", Type: "http", URL: "http://127.0.0.1:1/mcp"}
	tests := []struct {
		name string
		caps adapters.Capabilities
		want []adapters.MCPServer
	}{
		{"none", adapters.Capabilities{}, nil},
		{"stdio", adapters.Capabilities{MCP: true}, []adapters.MCPServer{stdio}},
		{"http", adapters.Capabilities{MCPHTTP: true}, []adapters.MCPServer{web}},
		{"both", adapters.Capabilities{MCP: true, MCPHTTP: true}, []adapters.MCPServer{stdio, web}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := answers("codex")
			a.caps = tt.caps
			reg := adapters.NewRegistry()
			reg.Register(a)
			d := New(Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(),
				MCPServers: func(adapters.Adapter) []adapters.MCPServer { return []adapters.MCPServer{stdio, web} }})
			defer d.Close()
			if _, err := d.Delegate(context.Background(), Request{Agent: "codex", Prompt: "hi"}, nil); err != nil {
				t.Fatal(err)
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if len(a.mcp) != 1 || !slices.EqualFunc(a.mcp[0], tt.want, func(x, y adapters.MCPServer) bool { return x.Name == y.Name }) {
				t.Fatalf("the delegate got MCP servers %+v; want %+v", a.mcp, tt.want)
			}
		})
	}
}
