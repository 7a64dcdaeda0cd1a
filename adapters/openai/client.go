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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
)

var (
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
	Type     string           `json:"type"`
	Function tools.Definition `json:"function"`
}

type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []message       `json:"messages"`
	Tools               []toolDef       `json:"tools,omitempty"`
	ToolChoice          string          `json:"tool_choice,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       map[string]bool `json:"stream_options,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type       string     `json:"type"` // "json_schema"
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type usage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
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
	Delta        delta  `json:"delta"`
	Message      delta  `json:"message"`
	FinishReason string `json:"finish_reason"`
}

type chunk struct {
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage"`
	Error   *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type reply struct {
	Text      string
	ToolCalls []toolCall
	Finish    string
	Usage     *usage
}

// Clock is the loop's time (retry waits, the system prompt's date).
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends (returning ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d): // collected unfired once unreferenced (Go 1.23)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Retries of 429, 5xx and connection failures: how many (unless
// Options.MaxRetries says), the first backoff, doubling up to its cap, and
// the cap on a provider's Retry-After.
const (
	defaultMaxRetries = 4
	retryBase         = 500 * time.Millisecond
	retryCap          = 20 * time.Second
	retryAfterCap     = 60 * time.Second
)

type client struct {
	// mu guards profile's Model (SetModel) and Stream, cleared when the
	// server rejects streaming.
	mu      sync.Mutex
	profile Profile
	http    *http.Client
	clock   Clock
	retries int
	idle    time.Duration
}

type httpError struct {
	status     int
	retryAfter time.Duration
	msg        string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.msg) }

// complete retries only when nothing was emitted yet for the attempt.
func (c *client) complete(ctx context.Context, req *chatRequest, emit func(adapters.Event)) (*reply, error) {
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		p := c.profile // SetModel may change it meanwhile
		c.mu.Unlock()
		req.Stream = p.Stream
		req.StreamOptions = nil
		if req.Stream {
			req.StreamOptions = map[string]bool{"include_usage": true}
		}
		emitted := false
		r, err := c.once(ctx, p, req, func(e adapters.Event) { emitted = true; emit(e) })
		if err == nil {
			return r, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if he, ok := errors.AsType[*httpError](err); ok && he.status == http.StatusBadRequest && req.Stream && strings.Contains(strings.ToLower(he.msg), "stream") {
			c.mu.Lock()
			c.profile.Stream = false
			c.mu.Unlock()
			attempt--
			continue
		}
		if emitted || !retryable(err) || attempt >= c.retries {
			return nil, err
		}
		d := c.backoff(attempt, err)
		emit(c.retryNotice(err, d, attempt))
		if err := c.clock.Sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

// retryable: rate limits, server errors and broken connections; not a
// refused connection, where nothing listens (a local server that is not
// running) and waiting only delays the one-line answer.
func retryable(err error) bool {
	if s := statusOf(err); s != 0 {
		return s == http.StatusTooManyRequests || s >= 500
	}
	return errors.Is(err, ErrUnreachable) && !connRefused(err)
}

// wsaeConnRefused is Winsock's WSAECONNREFUSED, which is not
// syscall.ECONNREFUSED (an errno Go invents on Windows).
const wsaeConnRefused = syscall.Errno(10061)

func connRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || runtime.GOOS == "windows" && errors.Is(err, wsaeConnRefused)
}

func statusOf(err error) int {
	if he, ok := errors.AsType[*httpError](err); ok {
		return he.status
	}
	return 0
}

func (c *client) retryNotice(err error, wait time.Duration, attempt int) adapters.Event {
	status := statusOf(err)
	msg := fmt.Sprintf("%s: %v; retrying in %s (retry %d of %d)", c.profile.Name, err, wait.Round(100*time.Millisecond), attempt+1, c.retries)
	return adapters.Event{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: msg, Code: adapters.StatusCode(status), Status: status}}
}

func (c *client) backoff(attempt int, err error) time.Duration {
	if he, ok := errors.AsType[*httpError](err); ok && he.retryAfter > 0 {
		return min(he.retryAfter, retryAfterCap)
	}
	d := retryBase << attempt
	if d > retryCap || d <= 0 {
		d = retryCap
	}
	// ±20% jitter so parallel sessions do not retry in lockstep.
	return d + time.Duration((rand.Float64()*0.4-0.2)*float64(d))
}

func (c *client) once(ctx context.Context, p Profile, req *chatRequest, emit func(adapters.Event)) (*reply, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Endpoint("/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProvider, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if req.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	p.Authorize(hreq)
	// A stall cancels the request with ErrIdle as the cause, which a failed
	// send or read returns.
	stall := time.AfterFunc(c.idle, func() { cancel(fmt.Errorf("%w: nothing from %s for %s", ErrIdle, p.BaseURL, c.idle)) })
	defer stall.Stop()
	resp, err := c.http.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if connRefused(err) {
			return nil, fmt.Errorf("%w: nothing listens at %s; is the server running? (%w)", ErrUnreachable, p.BaseURL, err)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreachable, p.BaseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, readHTTPError(resp, c.clock.Now())
	}
	read, in := readJSON, &idleReader{resp.Body, stall, c.idle}
	if req.Stream && !strings.Contains(resp.Header.Get("Content-Type"), "application/json") {
		read = readStream
	}
	r, err := read(in, emit)
	if err != nil && ctx.Err() != nil {
		return nil, context.Cause(ctx)
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

func errorMessage(b []byte) string {
	var v struct {
		Error any `json:"error"` // an object with a message, or a string
	}
	_ = json.Unmarshal(b, &v)
	switch e := v.Error.(type) {
	case string:
		return e
	case map[string]any:
		if m, _ := e["message"].(string); m != "" {
			return m
		}
	}
	return clip(adapters.OneLine(string(b)), 300)
}

type accumulator struct {
	r     reply
	text  strings.Builder
	index []int // the stream's index of each of r.ToolCalls
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
		if tc.Index != nil {
			i = *tc.Index
		}
		j := slices.Index(a.index, i)
		if j < 0 {
			j, a.index = len(a.index), append(a.index, i)
			a.r.ToolCalls = append(a.r.ToolCalls, toolCall{Type: "function"})
		}
		cur := &a.r.ToolCalls[j]
		cur.ID = cmp.Or(tc.ID, cur.ID)
		cur.Function.Name += tc.Function.Name
		cur.Function.Arguments += tc.Function.Arguments
	}
}

func (a *accumulator) result(err error) (*reply, error) {
	if err != nil {
		return nil, err
	}
	a.r.Text = a.text.String()
	for i := range a.r.ToolCalls {
		a.r.ToolCalls[i].ID = cmp.Or(a.r.ToolCalls[i].ID, fmt.Sprintf("call_%d", i))
	}
	return &a.r, nil
}

// readStream reads a server-sent event stream
// (https://html.spec.whatwg.org/multipage/server-sent-events.html): lines
// end in LF, CRLF or CR, an event's data lines join with "\n", a blank line
// or the stream's end ends it. A line is handled when its end arrives, so an
// event is never held until the next byte shows whether an LF follows a CR.
func readStream(body io.Reader, emit func(adapters.Event)) (*reply, error) {
	br := bufio.NewReader(body)
	var acc accumulator
	var line, data []byte
	first, afterCR := true, false
	for {
		c, err := br.ReadByte()
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%w: stream broke: %v", ErrUnreachable, err)
		}
		if err == nil && c == '\n' && afterCR { // a CRLF's LF: its line was handled at the CR
			afterCR = false
			continue
		}
		if afterCR = c == '\r'; err == nil && c != '\r' && c != '\n' {
			if line = append(line, c); len(line) > maxBody {
				return nil, fmt.Errorf("%w: stream broke: a line over %d bytes", ErrUnreachable, maxBody)
			}
			continue
		}
		if first { // a byte order mark may start the stream
			line, first = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), false
		}
		if len(line) > 0 { // the end of the stream ends its last line and event
			value, isData, ferr := sseField(line)
			if ferr != nil {
				return nil, ferr
			}
			if line = line[:0]; isData && len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, value...)
			if err == nil {
				continue
			}
		}
		done, eerr := acc.event(data, emit) // a blank line ends the event
		if data = data[:0]; eerr != nil || done {
			return acc.result(eerr)
		}
		if err != nil {
			if acc.r.Finish == "" {
				return acc.result(fmt.Errorf("%w: stream ended before finish_reason", ErrMalformed))
			}
			return acc.result(nil)
		}
	}
}

// maxBody bounds a provider's answer without a stream, and one line of one.
const maxBody = 64 << 20

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
	return nil, false, fmt.Errorf("%w: unexpected line %q", ErrMalformed, clip(string(line), 120))
}

// event handles one event's data: one or more JSON chunks, or [DONE].
func (a *accumulator) event(data []byte, emit func(adapters.Event)) (done bool, err error) {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return true, nil
	}
	for dec := json.NewDecoder(bytes.NewReader(data)); ; {
		var c chunk
		if err := dec.Decode(&c); err == io.EOF {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("%w: bad chunk %q: %v", ErrMalformed, clip(string(data), 120), err)
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
	a.r.Usage = cmp.Or(c.Usage, a.r.Usage)
	for _, ch := range c.Choices {
		a.add(ch.Delta, emit)
		a.r.Finish = cmp.Or(ch.FinishReason, a.r.Finish)
	}
	return nil
}

// readJSON reads an answer without a stream.
func readJSON(body io.Reader, emit func(adapters.Event)) (*reply, error) {
	var c chunk
	if err := json.NewDecoder(io.LimitReader(body, maxBody)).Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if c.Error == nil && len(c.Choices) == 0 {
		return nil, fmt.Errorf("%w: no choices in response", ErrMalformed)
	}
	var acc accumulator
	if len(c.Choices) > 0 {
		c.Choices = []choice{{Delta: c.Choices[0].Message, FinishReason: c.Choices[0].FinishReason}}
	}
	return acc.result(acc.chunk(c, emit))
}

// idleReader restarts t, which ends the request when no bytes arrived for d.
type idleReader struct {
	io.Reader
	t *time.Timer
	d time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	if n > 0 {
		r.t.Reset(r.d)
	}
	return n, err
}
