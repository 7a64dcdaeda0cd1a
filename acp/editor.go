package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hubdev/hub/adapters"
)

var _ adapters.EditorClient = (*editorClient)(nil)

// editorClient exposes the editor's fs/terminal methods to adapters, only
// as far as the client advertised them.
type editorClient struct {
	conn      *conn
	sessionID string
	caps      ClientCapabilities
}

func (e *editorClient) CanReadFile() bool  { return e.caps.FS.ReadTextFile }
func (e *editorClient) CanWriteFile() bool { return e.caps.FS.WriteTextFile }
func (e *editorClient) CanTerminal() bool  { return e.caps.Terminal }

// ReadTextFile reads path (absolute) through the editor.
func (e *editorClient) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	if !e.CanReadFile() {
		return "", fmt.Errorf("fs/read_text_file %s: %w", path, ErrNoCapability)
	}
	req := ReadTextFileRequest{SessionID: e.sessionID, Path: path}
	if line > 0 {
		req.Line = &line
	}
	if limit > 0 {
		req.Limit = &limit
	}
	res, err := e.conn.Call(ctx, "fs/read_text_file", req)
	if err != nil {
		return "", fmt.Errorf("fs/read_text_file %s: %w", path, err)
	}
	var out ReadTextFileResponse
	if err := json.Unmarshal(res, &out); err != nil {
		return "", fmt.Errorf("fs/read_text_file %s: bad result: %w", path, err)
	}
	return out.Content, nil
}

// WriteTextFile writes path through the editor; {} and null both succeed.
func (e *editorClient) WriteTextFile(ctx context.Context, path, content string) error {
	if !e.CanWriteFile() {
		return fmt.Errorf("fs/write_text_file %s: %w", path, ErrNoCapability)
	}
	if _, err := e.conn.Call(ctx, "fs/write_text_file", WriteTextFileRequest{SessionID: e.sessionID, Path: path, Content: content}); err != nil {
		return fmt.Errorf("fs/write_text_file %s: %w", path, err)
	}
	return nil
}

// Call forwards a client method with sessionId rewritten to this session.
// A null result comes back as {}.
func (e *editorClient) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	allowed := (method == "fs/read_text_file" && e.CanReadFile()) ||
		(method == "fs/write_text_file" && e.CanWriteFile()) ||
		(strings.HasPrefix(method, "terminal/") && e.CanTerminal()) ||
		method == "session/request_permission"
	if !allowed {
		return nil, fmt.Errorf("%s: %w", method, ErrNoCapability)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	m["sessionId"], _ = json.Marshal(e.sessionID)
	res, err := e.conn.Call(ctx, method, m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if len(res) == 0 || string(res) == "null" {
		return json.RawMessage("{}"), nil
	}
	return res, nil
}
