package openai

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
)

// Sentinel errors.
var (
	ErrNoAPIKey    = errors.New("no API key")
	ErrAuth        = errors.New("provider rejected the credentials")
	ErrUnreachable = errors.New("provider unreachable")
	ErrProvider    = errors.New("provider error")
	ErrMalformed   = errors.New("malformed provider response")
	ErrIdle        = errors.New("provider stream stalled")
)

// Wire types of the Chat Completions API.
type message struct {
	Role       string     `json:"role"`
	Content    any        `json:"content"` // string, []part or nil
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// size caches the estimated token count.
	size int
}

type part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type toolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type toolDef struct {
	Type     string      `json:"type"`
	Function functionDef `json:"function"`
}

type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []message      `json:"messages"`
	Tools               []toolDef      `json:"tools,omitempty"`
	ToolChoice          string         `json:"tool_choice,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`

	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

// responseFormat holds the final answer to a JSON Schema, strictly.
type responseFormat struct {
	Type       string `json:"type"` // "json_schema"
	JSONSchema struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	} `json:"json_schema"`
}

func schemaFormat(schema json.RawMessage) *responseFormat {
	if len(schema) == 0 {
		return nil
	}
	f := &responseFormat{Type: "json_schema"}
	f.JSONSchema.Name, f.JSONSchema.Schema, f.JSONSchema.Strict = "output", schema, true
	return f
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type usage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type delta struct {
	Content          string     `json:"content"`
	ReasoningContent string     `json:"reasoning_content"`
	Reasoning        string     `json:"reasoning"`
	ToolCalls        []toolCall `json:"tool_calls"`
}

type choice struct {
	Delta        delta   `json:"delta"`
	Message      delta   `json:"message"`
	FinishReason *string `json:"finish_reason"`
}

type chunk struct {
	Choices []choice  `json:"choices"`
	Usage   *usage    `json:"usage"`
	Error   *apiError `json:"error"`
}

type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// reply is one assistant answer.
type reply struct {
	Text      string
	ToolCalls []toolCall
	Finish    string
	Usage     *usage
}

// Clock lets tests control backoff and idle timers.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends (returning ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryPolicy bounds retries of 429, 5xx and connection failures.
type retryPolicy struct {
	Max      int
	Base     time.Duration
	Cap      time.Duration
	AfterCap time.Duration // cap on Retry-After
}

var defaultRetry = retryPolicy{Max: 4, Base: 500 * time.Millisecond, Cap: 20 * time.Second, AfterCap: 60 * time.Second}

// client talks to one profile.
type client struct {
	profile Profile
	http    *http.Client
	clock   Clock
	retry   retryPolicy
	idle    time.Duration
	// stream is cleared when the server rejects streaming.
	mu     sync.Mutex
	stream bool
}

// httpError is a non-2xx answer.
type httpError struct {
	status     int
	retryAfter time.Duration
	msg        string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.msg) }

func (c *client) streaming() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stream
}

// complete sends req with retries; emit receives text and thought deltas.
// It only retries when nothing was emitted yet for the attempt.
func (c *client) complete(ctx context.Context, req *chatRequest, emit func(adapters.Event)) (*reply, error) {
	for attempt := 0; ; attempt++ {
		req.Stream = c.streaming()
		req.StreamOptions = nil
		if req.Stream {
			req.StreamOptions = &streamOptions{IncludeUsage: true}
		}
		emitted := false
		r, err := c.once(ctx, req, func(e adapters.Event) { emitted = true; emit(e) })
		if err == nil {
			return r, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var he *httpError
		if errors.As(err, &he) && he.status == http.StatusBadRequest && req.Stream && mentionsStream(he.msg) {
			c.mu.Lock()
			c.stream = false
			c.mu.Unlock()
			attempt--
			continue
		}
		if emitted || !retryable(err) || attempt >= c.retry.Max {
			return nil, err
		}
		d := c.backoff(attempt, err)
		emit(c.retryNotice(err, d, attempt))
		if err := c.clock.Sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

func mentionsStream(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "stream")
}

// retryable: rate limits, server errors and broken connections; not a
// refused connection, where nothing listens (a local server that is not
// running) and waiting only delays the one-line answer.
func retryable(err error) bool {
	var he *httpError
	if errors.As(err, &he) {
		return he.status == http.StatusTooManyRequests || he.status >= 500
	}
	return errors.Is(err, ErrUnreachable) && !connRefused(err)
}

// retryNotice tells the user, without ending the turn, why the loop waits.
func (c *client) retryNotice(err error, wait time.Duration, attempt int) adapters.Event {
	code := adapters.CodeProvider
	var he *httpError
	status := 0
	if errors.As(err, &he) {
		status = he.status
	}
	if status == http.StatusTooManyRequests {
		code = adapters.CodeRateLimit
	}
	msg := fmt.Sprintf("%s: %v; retrying in %s (retry %d of %d)", c.profile.Name, err, wait.Round(100*time.Millisecond), attempt+1, c.retry.Max)
	return adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: msg, Code: code, Status: status}}
}

func (c *client) backoff(attempt int, err error) time.Duration {
	var he *httpError
	if errors.As(err, &he) && he.retryAfter > 0 {
		return min(he.retryAfter, c.retry.AfterCap)
	}
	d := c.retry.Base << attempt
	if d > c.retry.Cap || d <= 0 {
		d = c.retry.Cap
	}
	// ±20% jitter so parallel sessions do not retry in lockstep.
	return d + time.Duration((rand.Float64()*0.4-0.2)*float64(d))
}

func (c *client) once(ctx context.Context, req *chatRequest, emit func(adapters.Event)) (*reply, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.profile.endpoint("/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProvider, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if req.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	c.profile.authorize(hreq)
	idle := newIdleTimer(c.idle, func() { cancel(ErrIdle) })
	defer idle.stop()
	resp, err := c.http.Do(hreq)
	if err != nil {
		if errors.Is(context.Cause(ctx), ErrIdle) {
			return nil, fmt.Errorf("%w: no answer from %s within %s", ErrIdle, c.profile.BaseURL, c.idle)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if connRefused(err) {
			return nil, fmt.Errorf("%w: nothing listens at %s; is the server running? (%w)", ErrUnreachable, c.profile.BaseURL, err)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreachable, c.profile.BaseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, readHTTPError(resp, c.clock.Now())
	}
	var r *reply
	ct := resp.Header.Get("Content-Type")
	if req.Stream && !strings.Contains(ct, "application/json") {
		r, err = readStream(&idleReader{r: resp.Body, t: idle}, emit)
	} else {
		r, err = readJSON(resp.Body, emit)
	}
	if err != nil && errors.Is(context.Cause(ctx), ErrIdle) {
		return nil, fmt.Errorf("%w: no data from %s for %s", ErrIdle, c.profile.BaseURL, c.idle)
	}
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return r, err
}

func readHTTPError(resp *http.Response, now time.Time) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 8192))
	he := &httpError{status: resp.StatusCode, msg: errorMessage(b)}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		if s, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil {
			he.retryAfter = time.Duration(s) * time.Second
		} else if t, err := http.ParseTime(ra); err == nil {
			he.retryAfter = t.Sub(now)
		}
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return fmt.Errorf("%w (%w)", ErrAuth, he)
	}
	return he
}

// errorMessage extracts error.message from an OpenAI-style body.
func errorMessage(b []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &v) == nil && len(v.Error) > 0 {
		var e apiError
		if json.Unmarshal(v.Error, &e) == nil && e.Message != "" {
			return e.Message
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
	}
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// accumulator builds a reply from deltas.
type accumulator struct {
	r     reply
	text  strings.Builder
	calls map[int]*toolCall
	order []int
}

func (a *accumulator) add(d delta, emit func(adapters.Event)) {
	if d.Content != "" {
		a.text.WriteString(d.Content)
		emit(adapters.Event{Type: adapters.EventText, Text: d.Content})
	}
	if t := d.ReasoningContent + d.Reasoning; t != "" {
		emit(adapters.Event{Type: adapters.EventThought, Text: t})
	}
	for i, tc := range d.ToolCalls {
		idx := i
		if tc.Index != nil {
			idx = *tc.Index
		}
		cur, ok := a.calls[idx]
		if !ok {
			if a.calls == nil {
				a.calls = map[int]*toolCall{}
			}
			cur = &toolCall{Type: "function"}
			a.calls[idx] = cur
			a.order = append(a.order, idx)
		}
		if tc.ID != "" {
			cur.ID = tc.ID
		}
		cur.Function.Name += tc.Function.Name
		cur.Function.Arguments += tc.Function.Arguments
	}
}

func (a *accumulator) finish() *reply {
	a.r.Text = a.text.String()
	for i, idx := range a.order {
		tc := a.calls[idx]
		tc.ID = cmp.Or(tc.ID, fmt.Sprintf("call_%d", i))
		a.r.ToolCalls = append(a.r.ToolCalls, *tc)
	}
	return &a.r
}

// readStream reads a server-sent event stream of chat completion chunks
// (https://html.spec.whatwg.org/multipage/server-sent-events.html): lines
// end in LF, CRLF or CR, a leading byte order mark is dropped, an event's
// data lines join with "\n" and a blank line ends it. An event still open at
// the end of the stream counts as ended.
func readStream(body io.Reader, emit func(adapters.Event)) (*reply, error) {
	lr := &lineReader{br: bufio.NewReaderSize(body, 64<<10), first: true}
	var acc accumulator
	var data bytes.Buffer
	pending, finished := false, false
	dispatch := func() (bool, error) {
		if !pending {
			return false, nil
		}
		pending = false
		done, err := acc.event(data.Bytes(), emit)
		data.Reset()
		finished = finished || acc.r.Finish != ""
		return done, err
	}
	for {
		line, err := lr.next()
		if len(line) == 0 && err == nil { // a blank line ends the event
			if done, perr := dispatch(); perr != nil || done {
				return doneReply(&acc, done, perr)
			}
			continue
		}
		if len(line) > 0 {
			value, isData, ferr := sseField(line)
			if ferr != nil {
				return nil, ferr
			}
			if isData {
				if pending {
					data.WriteByte('\n')
				}
				data.Write(value)
				pending = true
			}
		}
		if err == io.EOF {
			if done, perr := dispatch(); perr != nil || done {
				return doneReply(&acc, done, perr)
			}
			if finished {
				return acc.finish(), nil
			}
			return nil, fmt.Errorf("%w: stream ended before finish_reason", ErrMalformed)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: stream broke: %v", ErrUnreachable, err)
		}
	}
}

func doneReply(acc *accumulator, done bool, err error) (*reply, error) {
	if err != nil {
		return nil, err
	}
	return acc.finish(), nil
}

// sseField parses one non-blank line: the value of a data field (one
// leading space dropped), or nothing for a comment or another known field.
func sseField(line []byte) (value []byte, isData bool, err error) {
	name, value, _ := bytes.Cut(line, []byte(":"))
	switch string(name) {
	case "data":
		return bytes.TrimPrefix(value, []byte(" ")), true, nil
	case "", "event", "id", "retry": // "" is a comment (a line starting with ':')
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("%w: unexpected line %q", ErrMalformed, truncate(string(line), 120))
}

var bom = []byte("\xef\xbb\xbf")

// lineReader splits a stream into lines of any length ended by LF, CRLF or
// CR, dropping a byte order mark at the start.
type lineReader struct {
	br     *bufio.Reader
	first  bool // nothing read yet: a BOM may follow
	skipLF bool // the last line ended in CR: an LF right after belongs to it
	buf    []byte
}

// next returns the next line without its end; at the end of the stream it
// returns the unterminated rest (possibly empty) with io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	if lr.first {
		lr.first = false
		// Peek waits for 3 bytes at most once; any event is longer.
		if b, _ := lr.br.Peek(len(bom)); bytes.Equal(b, bom) {
			_, _ = lr.br.Discard(len(bom))
		}
	}
	for {
		avail, err := lr.fill()
		if err != nil {
			return lr.buf, err
		}
		if lr.skipLF {
			lr.skipLF = false
			if avail[0] == '\n' {
				_, _ = lr.br.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(avail, "\r\n")
		if i < 0 {
			lr.buf = append(lr.buf, avail...)
			_, _ = lr.br.Discard(len(avail))
			continue
		}
		lr.buf = append(lr.buf, avail[:i]...)
		lr.skipLF = avail[i] == '\r'
		_, _ = lr.br.Discard(i + 1)
		return lr.buf, nil
	}
}

// fill returns the buffered bytes, waiting for at least one.
func (lr *lineReader) fill() ([]byte, error) {
	if _, err := lr.br.Peek(1); err != nil {
		return nil, err
	}
	return lr.br.Peek(lr.br.Buffered())
}

// event handles one event's data: chunks of JSON (one or more values), or
// [DONE], when done is true.
func (a *accumulator) event(data []byte, emit func(adapters.Event)) (bool, error) {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return true, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var c chunk
		err := dec.Decode(&c)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("%w: bad chunk %q: %v", ErrMalformed, truncate(string(data), 120), err)
		}
		if err := a.chunk(c, emit); err != nil {
			return false, err
		}
	}
}

func (a *accumulator) chunk(c chunk, emit func(adapters.Event)) error {
	if c.Error != nil {
		return fmt.Errorf("%w: %s", ErrProvider, c.Error.Message)
	}
	if c.Usage != nil {
		a.r.Usage = c.Usage
	}
	for _, ch := range c.Choices {
		a.add(ch.Delta, emit)
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.r.Finish = *ch.FinishReason
		}
	}
	return nil
}

func readJSON(body io.Reader, emit func(adapters.Event)) (*reply, error) {
	var c chunk
	if err := json.NewDecoder(io.LimitReader(body, 64<<20)).Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if c.Error != nil {
		return nil, fmt.Errorf("%w: %s", ErrProvider, c.Error.Message)
	}
	if len(c.Choices) == 0 {
		return nil, fmt.Errorf("%w: no choices in response", ErrMalformed)
	}
	var acc accumulator
	ch := c.Choices[0]
	acc.add(ch.Message, emit)
	if ch.FinishReason != nil {
		acc.r.Finish = *ch.FinishReason
	}
	acc.r.Usage = c.Usage
	return acc.finish(), nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// idleTimer fires when no bytes arrived for d (d <= 0 disables it).
type idleTimer struct {
	d time.Duration
	t *time.Timer
}

func newIdleTimer(d time.Duration, fire func()) *idleTimer {
	it := &idleTimer{d: d}
	if d > 0 {
		it.t = time.AfterFunc(d, fire)
	}
	return it
}

func (it *idleTimer) reset() {
	if it.t != nil {
		it.t.Reset(it.d)
	}
}

func (it *idleTimer) stop() {
	if it.t != nil {
		it.t.Stop()
	}
}

type idleReader struct {
	r io.Reader
	t *idleTimer
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.t.reset()
	}
	return n, err
}
