//go:build e2e && unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCP_HubMCPOverStdio drives the real `hub mcp` with the official Go
// SDK client: it lists the tools, delegates to the replay agent and
// continues the session; closing the client ends hub and every agent.
func TestMCP_HubMCPOverStdio(t *testing.T) {
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config", "hub")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(e2eReplayCfg("")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(e2eHubBin(t), "mcp", "--cwd", t.TempDir())
	cmd.Env = e2eEnv(home, "mcp", nil)
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to hub mcp: %v", err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delegate", Arguments: map[string]any{"agent": "replay", "prompt": "hello from mcp"}})
	if err != nil || res.IsError {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	var r struct{ Answer, Session string }
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &r)
	if !strings.Contains(r.Answer, "hello from mcp") || r.Session == "" {
		t.Fatalf("delegate result %s", b)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "continue", Arguments: map[string]any{"session": r.Session, "prompt": "and again"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "and again") {
		t.Fatalf("continue: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		t.Errorf("hub mcp did not exit with its client: %v", cmd.ProcessState)
	}
}
