package claude

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"uuid"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/safefile"
	"github.com/hubdev/hub/internal/trace"
)

type Session struct {
	a     *Adapter
	p     *proc.Process
	dec   *ClaudeDecoder
	rules adapters.TurnRules
	turn  adapters.Running

	writeMu sync.Mutex // serialises stdin lines

	mu       sync.Mutex
	id       string
	replies  adapters.Replies[json.RawMessage] // to the control requests hub sent
	readDone chan struct{}
	raw      *adapters.UnknownRecords
	opts     adapters.SessionOptions

	// steered are the user messages sent into the running turn, by uuid, with claude's
	// last word on each ("" before any, "queued" while it waits for a cycle of its own).
	steered    map[string]string
	lifecycles bool // this claude reports command_lifecycle records

	initOnce sync.Once
	initDone chan struct{} // closed once claude answered initialize (or cannot)
	init     initResponse
	initErr  error
	start    *trace.Span // the start's trace; nil when off
	notice   string      // starts the first turn: the project settings claude runs without
}

func newSession(a *Adapter, p *proc.Process, opts adapters.SessionOptions) *Session {
	s := &Session{a: a, p: p, dec: NewClaudeDecoder(), id: opts.ResumeID, opts: opts, steered: map[string]string{},
		readDone: make(chan struct{}), initDone: make(chan struct{})}
	s.dec.Control = s.onControl
	s.rules = adapters.RulesOf(opts, s.interrupt, nil)
	// Note runs on the reader goroutine, which owns the decoder.
	s.raw = adapters.NewUnknownRecords(a.log, "claude", TestedVersions, adapters.UnknownOptions{
		Version: func() string { return s.dec.Version }, Quiet: quietRecord})
	return s
}

func (s *Session) ID() string { s.mu.Lock(); defer s.mu.Unlock(); return s.id }

func (s *Session) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	// claude reports the lifecycle of a message with a uuid, and keeps it in its session
	// file, so it must look like one of its own.
	line, err := userMessage(prompt, uuid.NewV4().String())
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	t, err := s.turn.StartOn(s.p, "claude", ErrExited)
	if err != nil {
		s.mu.Unlock()
		return "", err
	}
	clear(s.steered)
	notice := s.notice
	s.notice = ""
	s.mu.Unlock()
	if notice != "" {
		emit(adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: notice, Code: adapters.CodeWarning}})
	}
	s.p.Trace(ctx)
	if err := s.write(line); err != nil {
		s.turn.End(t)
		return "", err
	}
	return t.Run(ctx, emit, s.rules)
}

// Steer sends a user message while the turn runs. claude takes it into the running cycle
// after the current tool call (one result), or, when the model had already finished, as
// a cycle of its own (a second result); its command_lifecycle records say which, so the
// turn ends after the cycle that answers it.
func (s *Session) Steer(_ context.Context, prompt []adapters.Content) error {
	id := uuid.NewV4().String()
	line, err := userMessage(prompt, id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.turn.Current() == nil || s.p.Exited() {
		s.mu.Unlock()
		return adapters.ErrNoTurn
	}
	s.steered[id] = ""
	s.mu.Unlock()
	return s.write(line)
}

func (s *Session) lifecycle(l ClaudeLifecycle) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lifecycles = true
	if _, ok := s.steered[l.Command]; ok {
		s.steered[l.Command] = l.State
	}
}

// steerWaiting says a steered message waits for a cycle of its own, so the result at
// hand does not end the turn: claude queued it, or has not said yet (a claude without
// lifecycle records is not waited for). s.mu must be held.
func (s *Session) steerWaiting() bool {
	for _, state := range s.steered {
		if state == "queued" || (state == "" && s.lifecycles) {
			return true
		}
	}
	return false
}

// maxImageBytes bounds a file:// image read into a prompt; the API refuses larger anyway.
const maxImageBytes = 20 << 20

var errImageTooLarge = errors.New("image is larger than 20 MB")

// imageBlock renders an image as an Anthropic image block: inline data and file:// images
// as base64, http(s) images as a URL for the API to fetch.
func imageBlock(c adapters.Content) (map[string]any, error) {
	if c.Data != "" {
		return base64Image(c.MimeType, c.Data), nil
	}
	u, err := url.Parse(c.URI)
	if err != nil {
		return nil, fmt.Errorf("claude: image URI %q: %w", c.URI, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		path, err := fileuri.ToPath(runtime.GOOS, c.URI)
		var b []byte
		if err == nil {
			b, err = safefile.Read(path, maxImageBytes) // a FIFO is refused, not waited on
		}
		if errors.Is(err, safefile.ErrTooLarge) {
			return nil, fmt.Errorf("claude: %s: %w; attach a smaller or compressed image", path, errImageTooLarge)
		}
		if err != nil {
			return nil, fmt.Errorf("claude: read image: %w", err)
		}
		return base64Image(cmp.Or(c.MimeType, http.DetectContentType(b)), base64.StdEncoding.EncodeToString(b)), nil
	case "http", "https":
		return map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": c.URI}}, nil
	}
	return nil, fmt.Errorf("claude: image %q: attach image data or a file:// or http(s) URI (%w)", c.URI, adapters.ErrUnsupported)
}

func base64Image(mimeType, data string) map[string]any {
	return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mimeType, "data": data}}
}

func userMessage(prompt []adapters.Content, uuid string) ([]byte, error) {
	var blocks []map[string]any
	for _, c := range prompt {
		switch c.Type {
		case adapters.ContentText:
			blocks = append(blocks, map[string]any{"type": "text", "text": c.Text})
		case adapters.ContentImage:
			b, err := imageBlock(c)
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, b)
		case adapters.ContentResourceLink: // claude's @-mention: a file URI's local path, any other URI as it is
			path, err := fileuri.ToPath(runtime.GOOS, c.URI)
			if err != nil {
				path = c.URI
			}
			blocks = append(blocks, map[string]any{"type": "text", "text": "@" + path})
		case adapters.ContentResource:
			blocks = append(blocks, map[string]any{"type": "text", "text": adapters.PromptText([]adapters.Content{c})})
		case adapters.ContentAudio:
			return nil, fmt.Errorf("claude: audio prompts: %w", adapters.ErrUnsupported)
		}
	}
	if len(blocks) == 0 {
		blocks = append(blocks, map[string]any{"type": "text", "text": ""})
	}
	return json.Marshal(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil, "uuid": uuid,
		"message": map[string]any{"role": "user", "content": blocks}})
}

func (s *Session) write(line []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return adapters.WriteLine(s.p, "claude", line)
}

// interrupt asks claude to interrupt the turn, and stops claude if it cannot be asked.
func (s *Session) interrupt() {
	if t := s.turn.Current(); t == nil || !t.Cancel() {
		return
	}
	if err := s.control(map[string]any{"subtype": "interrupt"}, nil); err != nil {
		s.a.log.Debug().Err(err).Msg("interrupt failed; stopping claude")
		go func() { _ = s.p.StopFor(adapters.StopIgnoredCancel) }()
	}
}

// control sends a control_request; reply (if non-nil) gets claude's answer or why there
// is none, on the reader goroutine. Once claude exited it is refused.
func (s *Session) control(req map[string]any, reply func(json.RawMessage, error)) error {
	id := s.replies.NewID("hub_")
	if s.p.Exited() || reply != nil && !s.replies.Await(id, reply) {
		return adapters.CrashError(s.p, "claude", ErrExited)
	}
	b, _ := json.Marshal(map[string]any{"type": "control_request", "request_id": id, "request": req}) // hub's own values
	return s.write(b)
}

// askRestoredCost asks a resumed claude the session cost it restored, which its results'
// total_cost_usd counts on from: the decoder's baseline, unless a result came first. The
// reply runs on the reader goroutine, the decoder's.
func (s *Session) askRestoredCost() {
	_ = s.control(map[string]any{"subtype": "get_usage", "skip_behaviors": true}, func(res json.RawMessage, err error) {
		var u struct {
			Session struct {
				Total float64 `json:"total_cost_usd"`
			} `json:"session"`
		}
		if err == nil && json.Unmarshal(res, &u) == nil && s.dec.cost == 0 {
			s.dec.cost = u.Session.Total
		}
	})
}

func (s *Session) SetModel(ctx context.Context, model string) error {
	return s.controlWait(ctx, map[string]any{"subtype": "set_model", "model": chosen(model)})
}

func (s *Session) SetMode(ctx context.Context, mode string) error {
	return s.controlWait(ctx, map[string]any{"subtype": "set_permission_mode", "mode": mode})
}

func (s *Session) controlWait(ctx context.Context, req map[string]any) error {
	reply := make(chan error, 1)
	err := s.control(req, func(_ json.RawMessage, err error) { reply <- err })
	if err == nil {
		select {
		case err = <-reply:
		case <-ctx.Done(): // claude's exit answers the reply (see exit)
			return ctx.Err()
		}
	}
	if err != nil {
		return fmt.Errorf("claude: %s: %w", req["subtype"], err)
	}
	return nil
}

// Close is idempotent: a turn is cancelled once, and Stop and the reader's end are the
// process's.
func (s *Session) Close() error {
	s.interrupt()
	_ = s.p.Stop()
	<-s.readDone
	return nil
}

func (s *Session) readLoop() {
	defer close(s.readDone)
	if err := adapters.ReadLines(s.p.Stdout, func(line []byte) {
		for _, ev := range s.dec.Decode(line) {
			s.handle(ev)
		}
	}); !errors.Is(err, io.EOF) {
		s.a.log.Debug().Err(err).Msg("read claude stdout")
	}
	s.exit()
}

// exit ends a running turn once claude closed its output (CrashEnd stops a claude that
// still runs), in the words of its Exit and of a write to it that failed.
func (s *Session) exit() {
	end := adapters.CrashEnd(s.p, "claude")
	gone := adapters.CrashError(s.p, "claude", ErrExited) // s.p is gone: no second wait
	s.replies.Close(gone)
	s.turn.Exited(s.turn.Cancelled(), end...)
}

func (s *Session) Exit() *adapters.ErrorInfo {
	return adapters.Exit(s.p, "claude", s.readDone)
}

func (s *Session) handle(ev adapters.Event) {
	switch ev.Type {
	case adapters.EventSessionInfo:
		s.mu.Lock()
		s.id = ev.Session.AgentSessionID
		s.mu.Unlock()
	case adapters.EventPermission:
		s.permission(ev)
		return
	case adapters.EventRaw:
		s.raw.Note(ev.Source)
	}
	s.emit(ev)
}

// emit sends ev to the running turn; the done event ends it, unless steered input still
// waits for a cycle of its own (claude then sends another result).
func (s *Session) emit(ev adapters.Event) {
	if ev.Type == adapters.EventDone { // the turn and its state end together
		s.mu.Lock()
		defer s.mu.Unlock()
		cancelled := s.turn.Cancelled()
		if !cancelled && s.steerWaiting() {
			s.dec.Continue()
			return
		}
		if cancelled {
			ev.StopReason = adapters.StopCancelled
		}
		clear(s.steered)
	}
	s.turn.Emit(ev)
}
