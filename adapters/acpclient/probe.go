package acpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/safefile"
)

// Probe starts an ACP agent, asks initialize and stops it, for doctor. env
// is the full environment.
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
	go closeOnExit(p, conn, nil) // p.Stop ends it
	defer conn.Close()
	err = callWhile(ctx, p, argv[0], conn, "initialize", schema.InitializeRequest{ProtocolVersion: schema.ProtocolVersion,
		ClientInfo: &schema.Implementation{Name: "hub", Title: "hub doctor", Version: "probe"}}, &init)
	switch {
	case err != nil:
		return init, adapters.Mark(ErrInitialize, adapters.WithStderr(p, err))
	case init.ProtocolVersion != schema.ProtocolVersion:
		return init, fmt.Errorf("%w: agent speaks ACP version %d, hub speaks 1", ErrProtocol, init.ProtocolVersion)
	}
	return init, nil
}

// CapsFromInit is what an initialize answer says the agent can do; every
// ACP agent takes stdio MCP servers, asks permission and may use editor files.
func CapsFromInit(init schema.InitializeResponse) adapters.Capabilities {
	c := init.AgentCapabilities
	return adapters.Capabilities{
		Images: c.PromptCapabilities.Image, Audio: c.PromptCapabilities.Audio, EmbeddedContext: c.PromptCapabilities.EmbeddedContext,
		Resume:      c.LoadSession || c.SessionCapabilities.Resume != nil,
		Permissions: true, MCP: true, MCPHTTP: c.McpCapabilities.HTTP, UsesEditorFS: true, Instructions: true, Skills: "prompt",
	}
}

// initCacheFile keeps each ACP agent's initialize answer, keyed by its
// program (path, mtime, size) and arguments: a new build asks again.
const initCacheFile = "acp-initialize-v1.json"

var initMu sync.Mutex // SaveInitialize's read-modify-write of the cache file

func initKey(path string, args []string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d %s", path, st.ModTime().UnixNano(), st.Size(), strings.Join(args, "\x00"))
}

func readInits(cacheDir string) map[string]schema.InitializeResponse {
	m := map[string]schema.InitializeResponse{}
	if data, err := os.ReadFile(filepath.Join(cacheDir, initCacheFile)); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

// CachedInitialize returns the initialize answer doctor cached for the
// program at path run with args.
func CachedInitialize(cacheDir, path string, args []string) (schema.InitializeResponse, bool) {
	r, ok := readInits(cacheDir)[initKey(path, args)] // none for "", a program that is gone
	return r, ok
}

// SaveInitialize caches r as the initialize answer of the program at path
// run with args; a failure only costs asking again.
func SaveInitialize(cacheDir, path string, args []string, r schema.InitializeResponse) {
	key := initKey(path, args)
	if key == "" {
		return
	}
	initMu.Lock()
	defer initMu.Unlock()
	m := readInits(cacheDir)
	for k := range m { // drop the answers of builds that are gone
		if path, _, _ := strings.Cut(k, " "); initKey(path, nil) == "" {
			delete(m, k)
		}
	}
	m[key] = r
	if data, err := json.Marshal(m); err == nil {
		_ = safefile.WriteAtomic(filepath.Join(cacheDir, initCacheFile), data, 0o644)
	}
}
