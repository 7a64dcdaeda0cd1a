package delegation

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/internal/jsonrpc"
)

// The environment that points a `hub mcp` child at the hub acp that
// started its agent.
const (
	EnvSocket = "HUB_DELEGATE_SOCKET"
	EnvToken  = "HUB_DELEGATE_TOKEN"
	// EnvChain is in every delegate's environment: the agents it works for
	// and itself, comma-separated, so a `hub mcp` of its own never loops back.
	EnvChain = "HUB_DELEGATE_CHAIN"
)

// ErrNoParent: a `hub mcp` child does not run delegates on its own instead.
var ErrNoParent = errors.New("cannot reach the hub acp that started this agent")

// Bridge lets the `hub mcp` an agent spawns run its tools on the hub acp
// that started the agent, so permissions, the editor's view, cancel and
// cleanup stay with the root session. Each root session is a Host behind its
// own token. Its address never changes (children keep it in their
// environment), so a socket a tmp cleaner removed is made again there.
type Bridge struct {
	addr   string
	dir    string
	log    zerolog.Logger
	mu     sync.Mutex
	ln     net.Listener
	sock   os.FileInfo // ln's file, to tell it from none or another
	hosts  map[string]Host
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
}

func Listen(log zerolog.Logger) (*Bridge, error) {
	ln, dir, err := openSocket()
	if err != nil {
		return nil, err
	}
	b := &Bridge{addr: ln.Addr().String(), dir: dir, log: log, hosts: map[string]Host{}, conns: map[net.Conn]bool{}}
	b.serveOn(ln)
	return b, nil
}

// serveOn: the caller holds mu, or is Listen.
func (b *Bridge) serveOn(ln net.Listener) {
	b.ln = ln
	b.sock, _ = os.Stat(b.addr)
	b.wg.Go(func() { b.accept(ln) })
}

// Reopen listens again at the bridge's address if a tmp cleaner removed or
// replaced its socket file. A child that cannot dial asks for it on the
// connection Dial kept, which outlives the file.
func (b *Bridge) Reopen() error {
	if b.dir == "" {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if fi, err := os.Lstat(b.addr); b.closed || (err == nil && os.SameFile(fi, b.sock)) {
		return nil
	}
	ln, err := relisten(b.dir, b.addr)
	if err != nil {
		return fmt.Errorf("the delegation socket %s was removed and cannot be made again (restart hub acp from the editor for a new one): %w", b.addr, err)
	}
	if ul, ok := b.ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false) // its path is ln's now
	}
	_ = b.ln.Close()
	b.serveOn(ln)
	return nil
}

func (b *Bridge) Register(h Host) (token string, unregister func()) {
	raw := make([]byte, 24)
	_, _ = rand.Read(raw)
	token = hex.EncodeToString(raw)
	b.mu.Lock()
	b.hosts[token] = h
	b.mu.Unlock()
	return token, func() {
		b.mu.Lock()
		delete(b.hosts, token)
		b.mu.Unlock()
	}
}

func (b *Bridge) Env(token string) map[string]string {
	return map[string]string{EnvSocket: b.addr, EnvToken: token}
}

func (b *Bridge) Close() {
	b.mu.Lock()
	b.closed = true
	_ = b.ln.Close()
	for nc := range b.conns {
		_ = nc.Close() // ends its read loop, so its serve returns
	}
	b.mu.Unlock()
	b.wg.Wait()
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}

func (b *Bridge) accept(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			_ = nc.Close()
			return
		}
		b.conns[nc] = true // before Close can look: Close ends every conn, and waits for its serve
		b.wg.Go(func() { b.serve(nc) })
		b.mu.Unlock()
	}
}

type callParams struct {
	Token    string  `json:"token"`
	Request  Request `json:"request,omitempty"`
	Progress bool    `json:"progress,omitempty"`
}

type progressParams struct {
	Message string `json:"message"`
}

func (b *Bridge) serve(nc net.Conn) {
	defer func() {
		b.mu.Lock()
		delete(b.conns, nc)
		b.mu.Unlock()
		_ = nc.Close()
	}()
	var conn *jsonrpc.Conn
	conn = jsonrpc.New(nc, nc, jsonrpc.Options{Logger: b.log,
		Request: func(ctx context.Context, r *jsonrpc.Request) jsonrpc.Job {
			return func() (any, func(), error) { return b.handle(ctx, conn, r) }
		}})
	_ = conn.Serve(context.Background())
	conn.Wait()
}

func (b *Bridge) handle(ctx context.Context, conn *jsonrpc.Conn, r *jsonrpc.Request) (any, func(), error) {
	var p callParams
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error(), nil)
	}
	b.mu.Lock()
	h, ok := b.hosts[p.Token]
	b.mu.Unlock()
	if !ok {
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "unknown delegation token: the session that started this agent has ended", nil)
	}
	var progress Progress
	if p.Progress {
		progress = func(msg string) { _ = conn.Notify("progress", progressParams{Message: msg}) }
	}
	switch r.Method {
	case "agents":
		return h.Agents(), nil, nil
	case "delegate":
		res, err := h.Delegate(ctx, p.Request, progress)
		return res, nil, err
	case "reopen":
		return nil, nil, b.Reopen()
	}
	return nil, nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+r.Method, nil)
}

// Remote is the Host of a `hub mcp` child: each tool call runs on the
// parent hub acp on a connection of its own, whose close cancels the call.
type Remote struct {
	addr, token string
	log         zerolog.Logger
	mu          sync.Mutex
	nc          net.Conn      // kept: it outlives the socket's file
	bell        *jsonrpc.Conn // on nc: asks the parent to make its socket again
	closed      bool          // no connection is kept any more
}

var _ Host = (*Remote)(nil)

// Dial checks that the bridge named in env answers; ok is false when env
// names none. When it does not answer, r's every call tries again.
func Dial(getenv func(string) string, log zerolog.Logger) (r *Remote, ok bool, err error) {
	sock, token := getenv(EnvSocket), getenv(EnvToken)
	if sock == "" {
		return nil, false, nil
	}
	r = &Remote{addr: sock, token: token, log: log}
	if err := r.keepBell(); err != nil {
		return r, true, fmt.Errorf("%w: %w", ErrNoParent, err)
	}
	return r, true, nil
}

// keepBell keeps a connection to the parent, on which to ask for reopen,
// unless one is kept.
func (r *Remote) keepBell() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bell != nil || r.closed {
		return nil
	}
	nc, err := dialSocket(r.addr)
	if err != nil {
		return err
	}
	r.nc, r.bell = nc, jsonrpc.New(nc, nc, jsonrpc.Options{Logger: r.log})
	go func() { _ = r.bell.Serve(context.Background()) }()
	return nil
}

func (r *Remote) reopen(ctx context.Context, dialErr error) error {
	r.mu.Lock()
	bell := r.bell
	r.mu.Unlock()
	if bell == nil && errors.Is(dialErr, fs.ErrNotExist) {
		return fmt.Errorf("%w (hub acp ended, or a tmp cleaner removed its socket, which it makes again at the session's next prompt: ask again then)", dialErr)
	}
	if bell == nil {
		return dialErr
	}
	err := bell.Call(ctx, "reopen", callParams{Token: r.token}, nil)
	if refused, ok := errors.AsType[*jsonrpc.Error](err); ok {
		return errors.New(refused.Message) // why the parent cannot: still unreachable (ErrNoParent), not the call's answer
	}
	return err
}

func (r *Remote) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.bell != nil {
		r.bell.Close()
		_ = r.nc.Close()
	}
}

func (r *Remote) Agents() []AgentInfo {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []AgentInfo
	_ = r.call(ctx, "agents", Request{}, nil, &out)
	return out
}

func (r *Remote) Delegate(ctx context.Context, req Request, progress Progress) (Result, error) {
	var res Result
	err := r.call(ctx, "delegate", req, progress, &res)
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if err == nil {
		return res, nil
	}
	if answered, ok := errors.AsType[*jsonrpc.Error](err); ok { // the parent's own words, not the wire's
		return Result{}, errors.New(answered.Message)
	}
	return Result{}, fmt.Errorf("%w: %w", ErrNoParent, err) // the connection failed, not the call
}

func (r *Remote) call(ctx context.Context, method string, req Request, progress Progress, out any) error {
	nc, err := dialSocket(r.addr)
	if err != nil {
		if err = r.reopen(ctx, err); err == nil {
			nc, err = dialSocket(r.addr) // the parent made its socket again
		}
	}
	if err != nil {
		return err
	}
	_ = r.keepBell() // the parent answers: a child that could not dial at its start can ask it from now on
	conn := jsonrpc.New(nc, nc, jsonrpc.Options{Logger: r.log, Notify: func(n *jsonrpc.Request) {
		var p progressParams
		if n.Method == "progress" && progress != nil && json.Unmarshal(n.Params, &p) == nil {
			progress(p.Message)
		}
	}})
	go func() { _ = conn.Serve(context.Background()) }()
	defer func() { conn.Close(); _ = nc.Close() }()
	return conn.Call(ctx, method, callParams{Token: r.token, Request: req, Progress: progress != nil}, out)
}
