package acpclient

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/proc"
)

// Probe starts an ACP agent, asks initialize (no session) and stops it:
// what the agent says it can do, for doctor. env is the full environment.
func Probe(ctx context.Context, argv, env []string) (schema.InitializeResponse, error) {
	var init schema.InitializeResponse
	p, err := proc.Start(context.Background(), proc.Spec{Path: argv[0], Args: argv[1:], Dir: os.TempDir(), Env: env,
		Grace: 200 * time.Millisecond, StderrLimit: 8 << 10})
	if err != nil {
		return init, err
	}
	defer func() { _ = p.Stop() }()
	conn := jsonrpc.New(p.Stdout, p.Stdin, jsonrpc.Options{})
	go func() { _ = conn.Serve(context.Background()) }()
	defer conn.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	err = conn.Call(ctx, "initialize", schema.InitializeRequest{ProtocolVersion: schema.ProtocolVersion,
		ClientInfo: &schema.Implementation{Name: "hub", Title: "hub doctor", Version: "probe"}}, &init)
	switch {
	case err != nil && p.Exited():
		tail := strings.ReplaceAll(p.StderrTail(2), "\n", " | ")
		return init, fmt.Errorf("%w: exited before answering initialize: %w (stderr: %s)", ErrInitialize, p.ExitError(argv[0]), tail)
	case err != nil:
		return init, fmt.Errorf("%w: %w", ErrInitialize, err)
	case init.ProtocolVersion != schema.ProtocolVersion:
		return init, fmt.Errorf("%w: agent speaks ACP version %d, hub speaks 1", ErrProtocol, init.ProtocolVersion)
	}
	return init, nil
}

// CapsFromInit is what an initialize answer says the agent can do. Every
// ACP agent takes stdio MCP servers, asks permission through the client,
// and may use the editor's files.
func CapsFromInit(init schema.InitializeResponse) adapters.Capabilities {
	c := init.AgentCapabilities
	return adapters.Capabilities{
		Images: c.PromptCapabilities.Image, Audio: c.PromptCapabilities.Audio, EmbeddedContext: c.PromptCapabilities.EmbeddedContext,
		Resume:      c.LoadSession || c.SessionCapabilities.Resume != nil,
		Permissions: true, MCP: true, MCPHTTP: c.McpCapabilities.HTTP, UsesEditorFS: true, Instructions: true, Skills: "prompt",
	}
}
