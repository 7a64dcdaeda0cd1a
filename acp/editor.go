package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// editorClient exposes the editor's fs/terminal methods to adapters, only
// as far as the client advertised them.
type editorClient struct {
	conn      *jsonrpc.Conn
	log       zerolog.Logger
	sessionID string
	caps      schema.ClientCapabilities
	// cwd (absolute) resolves relative paths adapters pass on (C31).
	cwd string

	// terms tracks terminals created through this session (C33): a
	// terminal content item must name one that is live when first sent, and
	// every live one is released when the session ends.
	tmu   sync.Mutex
	terms map[string]terminalState
}

type terminalState struct{ live, sent bool }

var ErrNoCapability = errors.New("client did not advertise this capability")

func (e *editorClient) CanReadFile() bool  { return e.caps.FS.ReadTextFile }
func (e *editorClient) CanWriteFile() bool { return e.caps.FS.WriteTextFile }
func (e *editorClient) CanTerminal() bool  { return e.caps.Terminal }

func (e *editorClient) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	p, _ := json.Marshal(schema.ReadTextFileRequest{Path: path, Line: nonZero(max(line, 0)), Limit: nonZero(max(limit, 0))})
	res, err := e.Call(ctx, "fs/read_text_file", p)
	var out schema.ReadTextFileResponse
	if err == nil {
		err = json.Unmarshal(res, &out)
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return out.Content, nil
}

func (e *editorClient) WriteTextFile(ctx context.Context, path, content string) error {
	p, _ := json.Marshal(schema.WriteTextFileRequest{Path: path, Content: content})
	if _, err := e.Call(ctx, "fs/write_text_file", p); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Call forwards a client fs or terminal method with sessionId rewritten
// to this session. A null result comes back as {}. Permission requests
// never pass here: only the session's gate asks the editor (choose).
func (e *editorClient) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	allowed := (method == "fs/read_text_file" && e.CanReadFile()) ||
		(method == "fs/write_text_file" && e.CanWriteFile()) ||
		(strings.HasPrefix(method, "terminal/") && e.CanTerminal())
	if !allowed {
		return nil, fmt.Errorf("%s: %w", method, ErrNoCapability)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	m["sessionId"], _ = json.Marshal(e.sessionID)
	e.absParam(m, "path")
	if method == "terminal/create" {
		e.absParam(m, "cwd")
	}
	res, err := e.conn.CallRaw(ctx, method, m)
	e.track(method, m["terminalId"], res, err)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if len(res) == 0 || string(res) == "null" {
		return json.RawMessage("{}"), nil
	}
	return res, nil
}

// abs makes p absolute against the session cwd: agents behind hub may use
// relative paths, and ACP clients require absolute ones.
func (e *editorClient) abs(p string) string {
	if p == "" || filepath.IsAbs(p) || e.cwd == "" {
		return p
	}
	return filepath.Join(e.cwd, p)
}

// absParam rewrites the string member key of m with abs.
func (e *editorClient) absParam(m map[string]json.RawMessage, key string) {
	var p string
	if raw, ok := m[key]; !ok || json.Unmarshal(raw, &p) != nil {
		return
	}
	if a := e.abs(p); a != p {
		m[key], _ = json.Marshal(a)
	}
}

// track records terminal/create results and terminal/release calls; a
// failed release counts as released so it is not retried forever.
func (e *editorClient) track(method string, idParam, res json.RawMessage, err error) {
	var id string
	var r schema.CreateTerminalResponse
	switch {
	case method == "terminal/create" && err == nil && json.Unmarshal(res, &r) == nil && r.TerminalID != "":
		id = r.TerminalID
	case method == "terminal/release" && json.Unmarshal(idParam, &id) == nil:
	default:
		return
	}
	e.tmu.Lock()
	defer e.tmu.Unlock()
	if e.terms == nil {
		e.terms = map[string]terminalState{}
	}
	st := e.terms[id]
	st.live = method == "terminal/create"
	e.terms[id] = st
}

// referenceTerminal reports whether a terminal content item may name id:
// it was created in this session and was live when first sent.
func (e *editorClient) referenceTerminal(id string) bool {
	e.tmu.Lock()
	defer e.tmu.Unlock()
	st := e.terms[id]
	if !st.live && !st.sent {
		return false
	}
	st.sent = true
	e.terms[id] = st
	return true
}

// releaseTimeout bounds releasing leftover terminals when a session ends.
const releaseTimeout = 2 * time.Second

// releaseAll releases every terminal still live, for agents that did not.
func (e *editorClient) releaseAll() {
	e.tmu.Lock()
	var ids []string
	for id, st := range e.terms {
		if st.live {
			ids = append(ids, id)
		}
	}
	e.tmu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	for _, id := range ids {
		p, _ := json.Marshal(schema.TerminalRequest{TerminalID: id})
		if _, err := e.Call(ctx, "terminal/release", p); err != nil {
			e.log.Debug().Err(err).Str("terminal", id).Msg("leftover terminal not released")
		}
	}
}
