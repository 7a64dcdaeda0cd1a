package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
	"github.com/hubdev/hub/internal/logging"
	"github.com/hubdev/hub/internal/proc"
)

// The session's MCP servers start in parallel; their tools are offered to
// the model as mcp__server__tool, and every call passes the permission gate.
// A server that fails is one warning and the session goes on without it.

// mcpStartTimeout bounds a server's start and tool listing.
const mcpStartTimeout = 15 * time.Second

type mcpTool struct {
	server, tool string
	def          tools.Definition
	sess         *mcp.ClientSession
}

type mcpTools struct {
	tools    map[string]mcpTool // by model-facing name
	defs     []tools.Definition
	sessions []*mcp.ClientSession
	warnings []adapters.Event // the servers that could not start
}

// stopOnClose is a stdio server's stdin: closing its session stops it.
type stopOnClose struct {
	io.Writer
	p *proc.Process
}

func (s stopOnClose) Close() error { return s.p.Stop() } // Stop closes stdin first

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// mcpName is the model-facing name of a server's tool (OpenAI function
// names allow letters, digits, _ and -, up to 64).
func mcpName(server, tool string) string {
	n := "mcp__" + unsafeName.ReplaceAllString(server, "_") + "__" + unsafeName.ReplaceAllString(tool, "_")
	return n[:min(len(n), 64)]
}

func startMCP(ctx context.Context, servers []adapters.MCPServer, log zerolog.Logger) *mcpTools {
	m := &mcpTools{tools: map[string]mcpTool{}}
	results := make([]struct {
		sess  *mcp.ClientSession
		tools []mcpTool
		err   error
	}, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Go(func() {
			r := &results[i]
			if r.sess, r.err = connectMCP(ctx, srv, log); r.err == nil {
				if r.tools, r.err = listMCP(ctx, srv.Name, r.sess); r.err != nil {
					_ = r.sess.Close() // a server that failed is not kept running
				}
			}
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil {
			m.warnings = append(m.warnings, adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{
				Message: fmt.Sprintf("MCP server %s is not available: %v", servers[i].Name, r.err), Code: adapters.CodeWarning}})
			log.Warn().Err(r.err).Str("server", servers[i].Name).Msg("MCP server not started")
			continue
		}
		m.sessions = append(m.sessions, r.sess)
		for _, t := range r.tools {
			m.tools[t.def.Name] = t
			m.defs = append(m.defs, t.def)
		}
	}
	return m
}

func connectMCP(ctx context.Context, srv adapters.MCPServer, log zerolog.Logger) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, mcpStartTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "hub", Version: "native"},
		&mcp.ClientOptions{Logger: logging.Slog(log.With().Str("mcp_server", srv.Name).Logger())})
	switch srv.Type {
	case "http", "sse":
		hc := &http.Client{Transport: headerTransport{srv.Headers, http.DefaultTransport}}
		var t mcp.Transport = &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc, MaxRetries: -1}
		if srv.Type == "sse" {
			t = &mcp.SSEClientTransport{Endpoint: srv.URL, HTTPClient: hc}
		}
		return client.Connect(ctx, t, nil)
	}
	p, err := proc.Start(context.Background(), proc.Spec{Path: srv.Command, Args: srv.Args, Env: adapters.Environ(nil, srv.Env),
		Grace: time.Second, StderrLimit: 16 << 10})
	if err != nil {
		return nil, err
	}
	s, err := client.Connect(ctx, &mcp.IOTransport{Reader: p.Stdout, Writer: stopOnClose{p.Stdin, p}}, nil)
	if err != nil {
		_ = p.Stop()
		err = adapters.WithStderr(p, err)
	}
	return s, err
}

func listMCP(ctx context.Context, server string, s *mcp.ClientSession) ([]mcpTool, error) {
	ctx, cancel := context.WithTimeout(ctx, mcpStartTimeout)
	defer cancel()
	var out []mcpTool
	for t, err := range s.Tools(ctx, nil) { // every page
		if err != nil {
			return nil, err
		}
		params, _ := json.Marshal(t.InputSchema)
		if len(params) == 0 || string(params) == "null" {
			params = []byte(`{"type":"object"}`)
		}
		desc := fmt.Sprintf("[MCP server %s] %s", server, t.Description)
		out = append(out, mcpTool{server: server, tool: t.Name, sess: s,
			def: tools.Definition{Name: mcpName(server, t.Name), Description: desc, Parameters: params}})
	}
	return out, nil
}

// call returns the text the model reads and the content the editor shows.
func (t mcpTool) call(ctx context.Context, args json.RawMessage) tools.Result {
	var in map[string]any
	if len(args) > 0 && json.Unmarshal(args, &in) != nil {
		return tools.Result{Output: "error: the arguments are not a JSON object", Failed: true}
	}
	res, err := t.sess.CallTool(ctx, &mcp.CallToolParams{Name: t.tool, Arguments: in})
	if err != nil {
		return tools.Result{Output: "error: " + err.Error(), Failed: true}
	}
	var text []string
	var content []adapters.ToolContent
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text = append(text, c.Text)
			content = append(content, textContent(clip(c.Text, uiTextCap)))
		case *mcp.ImageContent:
			text = append(text, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				text = append(text, c.Resource.Text)
			}
		}
	}
	out := strings.Join(text, "\n")
	if res.IsError {
		out = "error: " + out
	}
	return tools.Result{Output: out, Content: content, Failed: res.IsError}
}

func (m *mcpTools) close() {
	for _, s := range m.sessions {
		_ = s.Close()
	}
}

type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}
