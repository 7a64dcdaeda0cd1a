//go:build e2e && unix

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Harness timeouts. Prompts to real CLIs against mock servers are slow to
// start (node boot), so they get minutes; everything else gets seconds.
const (
	e2eCallTimeout   = 60 * time.Second
	e2ePromptTimeout = 5 * time.Minute
	e2eExitTimeout   = 15 * time.Second
	e2eLeftoverGrace = 3 * time.Second
	e2eScanInterval  = 100 * time.Millisecond
)

var (
	errHubExited = errors.New("hub exited")
	errTimeout   = errors.New("timed out waiting for the response")
)

var (
	e2eBinOnce sync.Once
	e2eBinPath string
	e2eBinErr  error
	e2eBinDir  string
)

func TestMain(m *testing.M) {
	if os.Getenv(e2eFakeACPEnv) == "1" {
		os.Exit(e2eFakeACPAgent(os.Stdin, os.Stdout))
	}
	if mark := os.Getenv(e2eMarkEnv); mark != "" { // a program an agent should not have run
		_ = os.WriteFile(mark, nil, 0o600)
		os.Exit(0)
	}
	if cli := os.Getenv(e2eNoACPEnv); cli != "" {
		e2eNoACP(cli)
	}
	code := m.Run()
	if e2eBinDir != "" {
		os.RemoveAll(e2eBinDir)
	}
	os.Exit(code)
}

// e2eRoot returns the module root (the directory holding go.mod).
func e2eRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("getwd: %v", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}

// e2eHubBin returns HUB_BIN, or builds ./cmd/hub once into a temp dir.
func e2eHubBin(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("HUB_BIN"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatalf("HUB_BIN %q: %v", p, err)
		}
		return abs
	}
	root := e2eRoot(t)
	e2eBinOnce.Do(func() {
		e2eBinDir, e2eBinErr = os.MkdirTemp("", "hub-e2e-bin-")
		if e2eBinErr != nil {
			return
		}
		e2eBinPath = filepath.Join(e2eBinDir, "hub")
		cmd := exec.Command("go", "build", "-o", e2eBinPath, "./cmd/hub")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			e2eBinErr = fmt.Errorf("go build ./cmd/hub: %v\n%s", err, out)
		}
	})
	if e2eBinErr != nil {
		t.Fatalf("build hub: %v", e2eBinErr)
	}
	return e2eBinPath
}

// e2eCache returns the pinned-CLI cache dir (HUB_E2E_CACHE or .cache/e2e).
func e2eCache(t testing.TB) string {
	t.Helper()
	if c := os.Getenv("HUB_E2E_CACHE"); c != "" {
		return c
	}
	return filepath.Join(e2eRoot(t), ".cache", "e2e")
}

// e2eCLI returns the path of an agent CLI installed by scripts/e2e-deps.sh.
// A missing CLI fails the test: `make e2e` installs all of them, so a hole
// in the cache is a broken run, not a pass. HUB_E2E_ALLOW_MISSING=1 turns it
// into a skip for a partial local run.
func e2eCLI(t *testing.T, agent, bin string) string {
	t.Helper()
	p := filepath.Join(e2eCache(t), agent, "node_modules", ".bin", bin)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("HUB_E2E_ALLOW_MISSING") == "1" {
			t.Skipf("%s CLI not installed at %s (HUB_E2E_ALLOW_MISSING=1)", agent, p)
		}
		t.Fatalf("%s CLI not installed at %s: run `make e2e-deps` (or set HUB_E2E_ALLOW_MISSING=1 to skip)", agent, p)
	}
	return p
}

// rpcError is a JSON-RPC error response.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("rpc error %d: %s (%s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message)
}

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) int {
	var re *rpcError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

type rpcMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// promptResult is what promptAsync delivers.
type promptResult struct {
	StopReason string
	Updates    []map[string]any
	Err        error
}

// e2eUpdate is one received session/update notification.
type e2eUpdate struct {
	SessionID string
	Update    map[string]any // params.update
}

// hubConn is a running `hub acp` with a raw JSON-RPC client on its pipes.
type hubConn struct {
	t    *testing.T
	home string // temp HOME; XDG_{CONFIG,STATE,CACHE}_HOME live under it

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	errBuf *e2eBuffer
	tag    string
	exited chan struct{} // closed when the process was reaped
	readDn chan struct{} // closed when stdout hit EOF

	writeMu sync.Mutex

	mu        sync.Mutex
	nextID    int64
	pending   map[string]chan rpcMsg
	updates   []e2eUpdate
	updateSig chan struct{} // closed and replaced on every new update
	lines     [][]byte
	badLines  []string
	requests  []rpcMsg // agent->client requests, in arrival order
	perm      func(params map[string]any) string
	// elicit answers elicitation/create; nil answers "Method not found".
	elicit    func(params map[string]any) map[string]any
	permOpen  map[string][]func(string) // session id -> answer funcs of pending permissions
	fsRead    bool
	fsWrite   bool
	seen      map[int]string // descendant pid -> start time, seen while running
	closeOnce sync.Once
}

// startHub runs `HUB_BIN acp` with a temp HOME whose user config is hubCfg.
// env entries (KEY=VALUE) are added last and win. close runs at cleanup.
func startHub(t *testing.T, hubCfg string, env []string) *hubConn {
	t.Helper()
	return startHubIn(t, t.TempDir(), hubCfg, env)
}

// startHubIn is startHub with a given HOME, e.g. to restart a hub on the
// state an earlier one left.
func startHubIn(t *testing.T, home, hubCfg string, env []string) *hubConn {
	t.Helper()
	bin := e2eHubBin(t)
	cfgDir := filepath.Join(home, ".config")
	for _, d := range []string{filepath.Join(cfgDir, "hub"), filepath.Join(home, ".local", "state"), filepath.Join(home, ".cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("mkdir %s: %v", d, err)
		}
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "hub", "config.toml"), []byte(hubCfg), 0o644); err != nil {
		t.Fatalf("write config: %v", err)
	}
	h := &hubConn{
		t:         t,
		home:      home,
		errBuf:    &e2eBuffer{},
		tag:       fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()),
		exited:    make(chan struct{}),
		readDn:    make(chan struct{}),
		pending:   map[string]chan rpcMsg{},
		updateSig: make(chan struct{}),
		permOpen:  map[string][]func(string){},
		seen:      map[int]string{},
	}
	h.cmd = exec.Command(bin, "acp")
	h.cmd.Dir = home
	h.cmd.Env = e2eEnv(home, h.tag, env)
	h.cmd.Stderr = h.errBuf
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatalf("stdin pipe: %v", err)
	}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout pipe: %v", err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("start %s acp: %v", bin, err)
	}
	go h.readLoop(stdout)
	go func() { h.cmd.Wait(); close(h.exited) }()
	go h.watchDescendants()
	t.Cleanup(h.close)
	return h
}

// e2eEnv is the test's environment minus HOME/XDG dirs, plus the temp ones,
// a tag every descendant inherits (for the leftover scan) and env.
func e2eEnv(home, tag string, extra []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "XDG_") || k == "HUB_REPLAY_SCRIPT" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"HUB_LOG=debug",
		"HUB_E2E_TAG="+tag,
	)
	return append(out, extra...)
}

// stderr returns everything the hub wrote to stderr so far.
func (h *hubConn) stderr() string { return h.errBuf.String() }

func (h *hubConn) readLoop(stdout io.Reader) {
	defer close(h.readDn)
	r := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			h.handleLine(line)
		}
		if err != nil {
			break
		}
	}
	h.mu.Lock()
	for id, ch := range h.pending {
		close(ch)
		delete(h.pending, id)
	}
	h.mu.Unlock()
}

func (h *hubConn) handleLine(line []byte) {
	raw := bytes.TrimSuffix(line, []byte("\n"))
	var obj map[string]json.RawMessage
	var msg rpcMsg
	okObj := json.Unmarshal(raw, &obj) == nil && obj != nil && line[len(line)-1] == '\n'
	h.mu.Lock()
	h.lines = append(h.lines, append([]byte(nil), raw...))
	if !okObj {
		h.badLines = append(h.badLines, string(raw))
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	if err := json.Unmarshal(raw, &msg); err != nil {
		h.mu.Lock()
		h.badLines = append(h.badLines, string(raw))
		h.mu.Unlock()
		return
	}
	switch {
	case msg.Method != "" && len(msg.ID) > 0 && string(msg.ID) != "null":
		h.mu.Lock()
		h.requests = append(h.requests, msg)
		h.mu.Unlock()
		go h.serveRequest(msg)
	case msg.Method == "session/update":
		h.addUpdate(msg.Params)
	case msg.Method != "":
		// Other notifications are recorded in lines only.
	default:
		h.mu.Lock()
		ch := h.pending[string(msg.ID)]
		delete(h.pending, string(msg.ID))
		h.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
	}
}

func (h *hubConn) addUpdate(params json.RawMessage) {
	var p struct {
		SessionID string         `json:"sessionId"`
		Update    map[string]any `json:"update"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		h.t.Errorf("session/update with bad params %s: %v", params, err)
		return
	}
	h.mu.Lock()
	h.updates = append(h.updates, e2eUpdate{SessionID: p.SessionID, Update: p.Update})
	close(h.updateSig)
	h.updateSig = make(chan struct{})
	h.mu.Unlock()
}

// serveRequest answers one agent->client request.
func (h *hubConn) serveRequest(msg rpcMsg) {
	var params map[string]any
	_ = json.Unmarshal(msg.Params, &params)
	switch msg.Method {
	case "session/request_permission":
		h.answerPermission(msg.ID, params)
	case "fs/read_text_file":
		h.mu.Lock()
		ok := h.fsRead
		h.mu.Unlock()
		if !ok {
			h.t.Errorf("hub called fs/read_text_file without the client capability (C15)")
			h.reply(msg.ID, nil, &rpcError{Code: -32601, Message: "Method not found"})
			return
		}
		res, err := e2eReadFile(params)
		h.reply(msg.ID, res, err)
	case "fs/write_text_file":
		h.mu.Lock()
		ok := h.fsWrite
		h.mu.Unlock()
		if !ok {
			h.t.Errorf("hub called fs/write_text_file without the client capability (C15)")
			h.reply(msg.ID, nil, &rpcError{Code: -32601, Message: "Method not found"})
			return
		}
		res, err := e2eWriteFile(params)
		h.reply(msg.ID, res, err)
	case "elicitation/create":
		h.mu.Lock()
		elicit := h.elicit
		h.mu.Unlock()
		if elicit == nil {
			h.reply(msg.ID, nil, &rpcError{Code: -32601, Message: "Method not found"})
			return
		}
		h.reply(msg.ID, elicit(params), nil)
	default:
		h.reply(msg.ID, nil, &rpcError{Code: -32601, Message: "Method not found"})
	}
}

func (h *hubConn) answerPermission(id json.RawMessage, params map[string]any) {
	sid, _ := params["sessionId"].(string)
	var once sync.Once
	answer := func(kind string) {
		once.Do(func() { h.reply(id, e2ePermOutcome(h.t, params, kind), nil) })
	}
	h.mu.Lock()
	handler := h.perm
	h.permOpen[sid] = append(h.permOpen[sid], answer)
	h.mu.Unlock()
	kind := "reject_once"
	if handler != nil {
		kind = handler(params)
	}
	answer(kind)
}

// e2ePermOutcome maps an option kind to a RequestPermissionResponse.
func e2ePermOutcome(t *testing.T, params map[string]any, kind string) map[string]any {
	if kind != "cancelled" {
		opts, _ := params["options"].([]any)
		for _, o := range opts {
			om, _ := o.(map[string]any)
			if om["kind"] == kind {
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": om["optionId"]}}
			}
		}
		t.Errorf("permission request offers no option of kind %q: %v", kind, params["options"])
	}
	return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}
}

func e2eReadFile(params map[string]any) (any, *rpcError) {
	path, _ := params["path"].(string)
	if !filepath.IsAbs(path) {
		return nil, &rpcError{Code: -32602, Message: "path must be absolute: " + path}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &rpcError{Code: -32002, Message: "Resource not found: " + err.Error()}
	}
	lines := strings.SplitAfter(string(data), "\n")
	start, limit := 0, len(lines)
	if l, ok := params["line"].(float64); ok && l >= 1 {
		start = min(int(l)-1, len(lines))
	}
	if n, ok := params["limit"].(float64); ok && n >= 0 {
		limit = int(n)
	}
	end := min(start+limit, len(lines))
	return map[string]any{"content": strings.Join(lines[start:end], "")}, nil
}

func e2eWriteFile(params map[string]any) (any, *rpcError) {
	path, _ := params["path"].(string)
	content, _ := params["content"].(string)
	if !filepath.IsAbs(path) {
		return nil, &rpcError{Code: -32602, Message: "path must be absolute: " + path}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, &rpcError{Code: -32603, Message: err.Error()}
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return nil, &rpcError{Code: -32603, Message: err.Error()}
	}
	return map[string]any{}, nil
}

func (h *hubConn) reply(id json.RawMessage, result any, rerr *rpcError) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		msg["error"] = rerr
	} else {
		msg["result"] = result
	}
	h.send(msg)
}

func (h *hubConn) send(msg any) {
	data, err := json.Marshal(msg)
	if err != nil {
		h.t.Errorf("marshal %v: %v", msg, err)
		return
	}
	h.sendRaw(string(data))
}

// sendRaw writes one line to the hub's stdin (for malformed-input tests).
func (h *hubConn) sendRaw(line string) {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	if _, err := io.WriteString(h.stdin, line+"\n"); err != nil {
		h.t.Logf("write to hub stdin: %v", err)
	}
}

// notify sends a notification.
func (h *hubConn) notify(method string, params any) {
	h.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// start sends a request and returns the channel its response arrives on
// (closed without a value if the hub exits first).
func (h *hubConn) start(method string, params any) chan rpcMsg {
	ch := make(chan rpcMsg, 1)
	h.mu.Lock()
	id := h.nextID
	h.nextID++
	h.pending[strconv.FormatInt(id, 10)] = ch
	h.mu.Unlock()
	h.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

func (h *hubConn) await(ch chan rpcMsg, method string, timeout time.Duration) (json.RawMessage, error) {
	select {
	case msg, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %w", method, errHubExited)
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("%s: %w", method, msg.Error)
		}
		return msg.Result, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("%s after %s: %w", method, timeout, errTimeout)
	}
}

// call sends a request and waits for its result.
func (h *hubConn) call(method string, params any) (map[string]any, error) {
	raw, err := h.await(h.start(method, params), method, e2eCallTimeout)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%s: result %s is not an object: %w", method, raw, err)
	}
	return out, nil
}

// initialize sends initialize (protocol 1) with caps as clientCapabilities.
// fs requests are served only for the fs capabilities advertised here.
func (h *hubConn) initialize(caps map[string]any) map[string]any {
	h.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	if fs, ok := caps["fs"].(map[string]any); ok {
		h.mu.Lock()
		h.fsRead, _ = fs["readTextFile"].(bool)
		h.fsWrite, _ = fs["writeTextFile"].(bool)
		h.mu.Unlock()
	}
	res, err := h.call("initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": caps,
		"clientInfo":         map[string]any{"name": "hub-e2e", "version": "0.0.0"},
	})
	if err != nil {
		h.t.Fatalf("initialize: %v\nhub stderr:\n%s", err, e2eTail(h.stderr(), 40))
	}
	if v, _ := res["protocolVersion"].(float64); v != 1 {
		h.t.Fatalf("initialize: protocolVersion = %v, want 1", res["protocolVersion"])
	}
	return res
}

// newSessionResult sends session/new and returns the whole result.
func (h *hubConn) newSessionResult(cwd string) map[string]any {
	h.t.Helper()
	res, err := h.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	if err != nil {
		h.t.Fatalf("session/new: %v\nhub stderr:\n%s", err, e2eTail(h.stderr(), 40))
	}
	if sid, _ := res["sessionId"].(string); sid == "" {
		h.t.Fatalf("session/new: no sessionId in %v", res)
	}
	return res
}

// newSession sends session/new for cwd and returns the session id.
func (h *hubConn) newSession(cwd string) string {
	h.t.Helper()
	return h.newSessionResult(cwd)["sessionId"].(string)
}

// promptAsync sends one text prompt; the result carries the params.update
// objects of sessionID received between the request and its response.
func (h *hubConn) promptAsync(sessionID, text string) <-chan promptResult {
	h.mu.Lock()
	from := len(h.updates)
	h.mu.Unlock()
	ch := h.start("session/prompt", map[string]any{
		"sessionId": sessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": text}},
	})
	out := make(chan promptResult, 1)
	go func() {
		raw, err := h.await(ch, "session/prompt", e2ePromptTimeout)
		res := promptResult{Updates: h.updatesSince(from, sessionID), Err: err}
		if err == nil {
			var r struct {
				StopReason string `json:"stopReason"`
			}
			if uerr := json.Unmarshal(raw, &r); uerr != nil || r.StopReason == "" {
				res.Err = fmt.Errorf("session/prompt: result %s has no stopReason", raw)
			}
			res.StopReason = r.StopReason
		}
		out <- res
	}()
	return out
}

// prompt sends one text prompt and waits for the turn to end.
func (h *hubConn) prompt(sessionID, text string) (stopReason string, updates []map[string]any, err error) {
	r := <-h.promptAsync(sessionID, text)
	return r.StopReason, r.Updates, r.Err
}

func (h *hubConn) updatesSince(from int, sessionID string) []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, u := range h.updates[from:] {
		if u.SessionID == sessionID {
			out = append(out, u.Update)
		}
	}
	return out
}

// allUpdates returns every session/update received so far.
func (h *hubConn) allUpdates() []e2eUpdate {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]e2eUpdate(nil), h.updates...)
}

// cancel sends session/cancel and answers the session's pending permission
// requests with the cancelled outcome, as ACP requires of clients.
func (h *hubConn) cancel(sessionID string) {
	h.notify("session/cancel", map[string]any{"sessionId": sessionID})
	h.mu.Lock()
	open := h.permOpen[sessionID]
	delete(h.permOpen, sessionID)
	h.mu.Unlock()
	for _, answer := range open {
		answer("cancelled")
	}
}

// setPermissionHandler decides session/request_permission: it returns an
// option kind ("allow_once", "reject_once", ...) or "cancelled". It runs on
// its own goroutine and may block. Without a handler: reject_once.
func (h *hubConn) setPermissionHandler(f func(params map[string]any) string) {
	h.mu.Lock()
	h.perm = f
	h.mu.Unlock()
}

// permissionRequests returns the params of every permission request so far.
func (h *hubConn) permissionRequests() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, r := range h.requests {
		if r.Method == "session/request_permission" {
			var p map[string]any
			_ = json.Unmarshal(r.Params, &p)
			out = append(out, p)
		}
	}
	return out
}

// waitUpdate returns the first params.update (of any session, earliest
// first, including ones already received) for which pred is true.
func (h *hubConn) waitUpdate(pred func(map[string]any) bool, timeout time.Duration) (map[string]any, bool) {
	deadline := time.After(timeout)
	next := 0
	for {
		h.mu.Lock()
		ups, sig := h.updates[next:], h.updateSig
		next = len(h.updates)
		h.mu.Unlock()
		for _, u := range ups {
			if pred(u.Update) {
				return u.Update, true
			}
		}
		select {
		case <-sig:
		case <-h.readDn:
			return nil, false
		case <-deadline:
			return nil, false
		}
	}
}

// close ends the session: closes stdin, waits for the hub to exit, asserts
// every stdout line was a JSON object (C01) and no descendant survived.
// Idempotent; also runs at test cleanup.
func (h *hubConn) close() {
	h.closeOnce.Do(h.doClose)
}

func (h *hubConn) doClose() {
	t := h.t
	pid := h.cmd.Process.Pid
	h.stdin.Close()
	select {
	case <-h.exited:
	case <-time.After(e2eExitTimeout):
		syscall.Kill(-pid, syscall.SIGKILL)
		<-h.exited
		t.Errorf("hub did not exit within %s after stdin closed; killed its group\nhub stderr:\n%s",
			e2eExitTimeout, e2eTail(h.stderr(), 40))
	}
	<-h.readDn
	if left := h.awaitNoLeftovers(pid); len(left) > 0 {
		for _, p := range left {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
		t.Errorf("processes left behind after hub exited (killed now): %v", left)
	}
	h.mu.Lock()
	bad := append([]string(nil), h.badLines...)
	h.mu.Unlock()
	for _, l := range bad {
		t.Errorf("C01: stdout line is not a JSON object: %.300q", l)
	}
	if t.Failed() {
		t.Logf("hub stderr (tail):\n%s", e2eTail(h.stderr(), 60))
	}
}

// stdoutLines returns every raw line the hub wrote so far.
func (h *hubConn) stdoutLines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.lines))
	for i, l := range h.lines {
		out[i] = string(l)
	}
	return out
}

// e2eProc is a live process found by the leftover scan.
type e2eProc struct {
	pid     int
	cmdline string
}

func (p e2eProc) String() string { return fmt.Sprintf("%d(%s)", p.pid, p.cmdline) }

// watchDescendants records the hub's descendants while it runs so that ones
// reparented to init after the hub exits are still recognised.
func (h *hubConn) watchDescendants() {
	pid := h.cmd.Process.Pid
	tick := time.NewTicker(e2eScanInterval)
	defer tick.Stop()
	for {
		procs := e2eScanProcs()
		for _, d := range e2eDescendants(procs, pid) {
			h.mu.Lock()
			h.seen[d] = procs[d].start
			h.mu.Unlock()
		}
		select {
		case <-h.exited:
			return
		case <-tick.C:
		}
	}
}

// awaitNoLeftovers polls briefly for processes that belong to this hub:
// its group, its descendants, processes seen as descendants earlier, or
// carrying its HUB_E2E_TAG.
func (h *hubConn) awaitNoLeftovers(pid int) []e2eProc {
	deadline := time.Now().Add(e2eLeftoverGrace)
	for {
		left := h.leftovers(pid)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(e2eScanInterval)
	}
}

func (h *hubConn) leftovers(pid int) []e2eProc {
	procs := e2eScanProcs()
	h.mu.Lock()
	seen := make(map[int]string, len(h.seen))
	for k, v := range h.seen {
		seen[k] = v
	}
	h.mu.Unlock()
	mine := map[int]bool{}
	for _, d := range e2eDescendants(procs, pid) {
		mine[d] = true
	}
	var out []e2eProc
	for p, info := range procs {
		if info.state == "Z" && info.ppid == 1 {
			continue
		}
		own := p == pid || info.pgid == pid || mine[p] ||
			(seen[p] != "" && seen[p] == info.start) || e2eHasTag(p, h.tag)
		if own {
			out = append(out, e2eProc{pid: p, cmdline: e2eCmdline(p)})
		}
	}
	return out
}

type e2eProcInfo struct {
	ppid, pgid int
	state      string
	start      string
}

// e2eScanProcs reads /proc/*/stat.
func e2eScanProcs() map[int]e2eProcInfo {
	out := map[int]e2eProcInfo{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// comm may contain spaces and parens; fields start after the last ')'.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 20 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		out[pid] = e2eProcInfo{ppid: ppid, pgid: pgid, state: f[0], start: f[19]}
	}
	return out
}

// e2eDescendants returns every process whose ppid chain leads to root.
func e2eDescendants(procs map[int]e2eProcInfo, root int) []int {
	var out []int
	for p := range procs {
		for q, hops := procs[p].ppid, 0; q > 1 && hops < 64; q, hops = procs[q].ppid, hops+1 {
			if q == root {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func e2eHasTag(pid int, tag string) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	return err == nil && bytes.Contains(data, []byte("HUB_E2E_TAG="+tag+"\x00"))
}

func e2eCmdline(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\x00", " "))
}

// e2eTail returns the last n lines of s.
func e2eTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// e2eText concatenates the text of agent_message_chunk updates.
func e2eText(updates []map[string]any) string {
	var b strings.Builder
	for _, u := range updates {
		if u["sessionUpdate"] != "agent_message_chunk" {
			continue
		}
		if c, ok := u["content"].(map[string]any); ok && c["type"] == "text" {
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// e2eKinds lists the sessionUpdate discriminators of updates, in order.
func e2eKinds(updates []map[string]any) []string {
	out := make([]string, 0, len(updates))
	for _, u := range updates {
		s, _ := u["sessionUpdate"].(string)
		out = append(out, s)
	}
	return out
}

// e2eBuffer is a goroutine-safe bytes.Buffer for the hub's stderr.
type e2eBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *e2eBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *e2eBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// e2eReplayCfg is a hub config whose default agent is the replay adapter,
// playing script (or echoing prompts when script is "").
func e2eReplayCfg(script string) string {
	cfg := "default_agent = \"replay\"\n\n[agents.replay]\ntype = \"replay\"\n"
	if script != "" {
		cfg += fmt.Sprintf("options = { script = %q }\n", script)
	}
	return cfg
}

func TestHarness_ReplayEcho(t *testing.T) {
	h := startHub(t, e2eReplayCfg(""), nil)
	h.initialize(map[string]any{})
	sid := h.newSession(t.TempDir())
	stop, updates, err := h.prompt(sid, "hello harness")
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if stop != "end_turn" {
		t.Errorf("stopReason = %q, want end_turn", stop)
	}
	if got := e2eText(updates); !strings.Contains(got, "hello harness") {
		t.Errorf("echoed text = %q (kinds %v), want it to contain the prompt", got, e2eKinds(updates))
	}
	if _, err := h.call("hub/no_such_method", map[string]any{}); rpcCode(err) != -32601 {
		t.Errorf("unknown method: err = %v, want -32601", err)
	}
	h.close()
	if len(h.stdoutLines()) < 4 {
		t.Errorf("stdout lines = %d, want at least 4", len(h.stdoutLines()))
	}
}

func TestHarness_HandleLineFlagsNonJSON(t *testing.T) {
	tests := []struct {
		line string
		bad  bool
	}{
		{`{"jsonrpc":"2.0","method":"x","params":{}}` + "\n", false},
		{"starting up...\n", true},
		{"[1,2]\n", true},
		{"\n", true},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true}, // no terminating newline
	}
	for _, tc := range tests {
		h := &hubConn{t: t, pending: map[string]chan rpcMsg{}, updateSig: make(chan struct{})}
		h.handleLine([]byte(tc.line))
		if got := len(h.badLines) == 1; got != tc.bad {
			t.Errorf("handleLine(%q): flagged = %v, want %v", tc.line, got, tc.bad)
		}
	}
}

func TestHarness_LeftoversFindsTaggedOrphan(t *testing.T) {
	h := &hubConn{t: t, tag: fmt.Sprintf("selftest-%d", time.Now().UnixNano()), seen: map[int]string{}}
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), "HUB_E2E_TAG="+h.tag)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep: %v", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// A pid that cannot exist stands in for the exited hub.
	left := h.leftovers(1 << 30)
	if len(left) != 1 || left[0].pid != cmd.Process.Pid {
		t.Fatalf("leftovers = %v, want only the tagged sleep %d", left, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if left := h.leftovers(1 << 30); len(left) != 0 {
		t.Errorf("leftovers after kill = %v, want none", left)
	}
}

// cancelAndReap cancels sid's running turn (res is its result), expects
// it to answer cancelled within 30s, and every process whose cmdline holds
// marker to be gone within gone.
func (h *hubConn) cancelAndReap(t *testing.T, sid string, res <-chan promptResult, marker string, gone time.Duration) {
	t.Helper()
	h.cancel(sid)
	select {
	case r := <-res:
		if r.Err != nil || r.StopReason != "cancelled" {
			t.Fatalf("cancelled turn: stop=%q err=%v", r.StopReason, r.Err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("turn did not end after cancel")
	}
	if left := claudeWaitGone(marker, gone); len(left) > 0 {
		t.Errorf("the cancelled turn's command still runs: pids %v", left)
	}
}
