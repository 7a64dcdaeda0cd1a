package mockllm

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestResolveMCP_NamesTheToolAsTheAgentOffersIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		offered []string
		want    string
		ok      bool
	}{
		{MCPTool("hub", "delegate"), []string{"Bash", "mcp__hub__delegate"}, "mcp__hub__delegate", true},
		{MCPTool("hub", "delegate"), []string{"hub__delegate"}, "hub__delegate", true},
		{MCPTool("hub", "delegate"), []string{"delegate"}, "delegate", true},
		{MCPTool("hub", "delegate"), []string{"mcp__other__delegate_x"}, "", false},
		{"Bash", nil, "Bash", true},
	} {
		got, ok := resolveMCP(tc.name, tc.offered)
		if got != tc.want || ok != tc.ok {
			t.Errorf("resolveMCP(%q, %q) = %q, %v; want %q, %v", tc.name, tc.offered, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAnthropicServer_CallsAnMCPToolByName(t *testing.T) {
	s := NewAnthropicServer(
		AnthropicTurn{ToolUses: []AnthropicToolUse{{Name: MCPTool("hub", "delegate"), Input: `{"agent":"codex"}`}}},
		AnthropicTurn{ToolUses: []AnthropicToolUse{{Name: MCPTool("hub", "delegate")}}})
	defer s.Close()
	_, datas, _ := anthropicSSE(t, s.URL, `{"stream":true,"tools":[{"name":"Bash"},{"name":"mcp__hub__delegate"}],"messages":[]}`)
	var named string
	for _, d := range datas {
		if b, ok := d["content_block"].(map[string]any); ok && b["type"] == "tool_use" {
			named, _ = b["name"].(string)
		}
	}
	if named != "mcp__hub__delegate" {
		t.Fatalf("tool_use named %q", named)
	}
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":true,"tools":[{"name":"Bash"}],"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "hub/delegate") {
		t.Fatalf("a turn whose MCP tool is not offered answered %d %s", resp.StatusCode, body)
	}
}
