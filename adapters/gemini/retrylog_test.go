package gemini

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// The debug logs in testdata/debug-log are gemini 0.61's own, written with
// GEMINI_DEBUG_LOG_FILE while `gemini --acp` ran a prompt against the mock
// model answering 500 / 429 every time, and against a closed port.
func TestRetryLog_RecordedRetriesBecomeErrors(t *testing.T) {
	for _, tc := range []struct {
		file     string
		attempts int
		status   int
		code     adapters.ErrorCode
		detail   string
	}{
		{"http-500.log", 4, 500, adapters.CodeProvider, `_ApiError: {"error":{"code":500,"message":"mockllm: forced error","status":"INVALID_ARGUMENT"}}`},
		{"http-429.log", 3, 429, adapters.CodeRateLimit, `_ApiError: {"error":{"code":429,"message":"mockllm: forced error","status":"INVALID_ARGUMENT"}}`},
		{"fetch-failed.log", 3, 0, adapters.CodeProvider, "Error: exception TypeError: fetch failed sending request"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			l := &retryLog{path: filepath.Join("testdata", "debug-log", tc.file)}
			got := l.read()
			if len(got) != tc.attempts {
				t.Fatalf("%d retry notices, want %d: %+v", len(got), tc.attempts, got)
			}
			for _, e := range got {
				if e.Status != tc.status || e.Code != tc.code || e.Detail != tc.detail || e.Fatal {
					t.Errorf("notice %+v, want status %d code %s detail %q, not fatal", e, tc.status, tc.code, tc.detail)
				}
			}
		})
	}
}

// The notices retryWithBackoff writes besides (gemini 0.61's bundle,
// chunk-JDPZ4CE3.js, logRetryAttempt and the RetryableQuotaError branch)
// and lines that are no retry.
func TestRetryNotice_Forms(t *testing.T) {
	const ts = "[2026-11-27T03:47:12.084Z] "
	for _, tc := range []struct {
		line   string
		status int
		code   adapters.ErrorCode // "" for no notice
	}{
		{ts + "[WARN] Attempt 2 failed with 429 error (no Retry-After header). Retrying with backoff... Error: got 429", 429, adapters.CodeRateLimit},
		{ts + "[WARN] Attempt 3 failed with 5xx error. Retrying with backoff... Error: 503 unavailable", 0, adapters.CodeProvider},
		{ts + "[WARN] Attempt 1 failed: Quota exceeded. Please retry in 2s. Retrying after 2150ms...", 0, adapters.CodeRateLimit},
		{ts + "[WARN] Attempt 10 failed with status 500. Max attempts reached", 0, ""},
		{ts + "[WARN] Attempt 10 failed: Quota exceeded. Max attempts reached", 0, ""},
		{ts + "[DEBUG] Attempt 1 failed with status 500. Retrying with backoff...", 0, ""},
		{"    at async retryWithBackoff (file:///gemini/bundle/chunk-JDPZ4CE3.js:308039:23)", 0, ""},
		{ts + "[WARN] Ripgrep is not available. Falling back to GrepTool.", 0, ""},
	} {
		e := retryNotice(tc.line)
		switch {
		case tc.code == "" && e != nil:
			t.Errorf("%q: notice %+v, want none", tc.line, e)
		case tc.code != "" && (e == nil || e.Code != tc.code || e.Status != tc.status):
			t.Errorf("%q: notice %+v, want code %s status %d", tc.line, e, tc.code, tc.status)
		}
	}
}

// A read takes a bounded piece of a large log, and the next the rest: the
// notice after the bulk still comes, once.
func TestRetryLog_LargeLogReadInPieces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "debug.log")
	notice := "[2026-11-27T03:47:10.000Z] [WARN] Attempt 1 failed with status 503. Retrying with backoff... late\n"
	bulk := bytes.Repeat([]byte("[2026-11-27T03:47:10.000Z] [DEBUG] noise\n"), 3*retryRead/40)
	if err := os.WriteFile(path, append(bulk, notice...), 0o600); err != nil {
		t.Fatal(err)
	}
	l := &retryLog{path: path}
	var got []*adapters.ErrorInfo
	for range 4 {
		off := l.off
		if got = append(got, l.read()...); l.off-off > retryRead {
			t.Fatalf("one read took %d bytes", l.off-off)
		}
	}
	if len(got) != 1 || got[0].Status != 503 {
		t.Fatalf("notices %+v, want the one 503 retry", got)
	}
}

// A turn gets the notices written while it runs, a line split across
// reads once, and none of those written before it.
func TestRetryLog_DuringTurn(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "debug-log", "http-500.log"))
	if err != nil {
		t.Fatal(err)
	}
	l, env := newRetryLog(nil, map[string]string{"K": "V"})
	defer l.remove()
	if l == nil || env[debugLogEnv] != l.path || env["K"] != "V" {
		t.Fatalf("log %+v env %v", l, env)
	}
	before := []byte("[2026-11-27T03:47:10.000Z] [WARN] Attempt 9 failed with status 503. Retrying with backoff... earlier\n")
	if err := os.WriteFile(l.path, before, 0o600); err != nil {
		t.Fatal(err)
	}
	notes := make(chan adapters.Event, 10)
	stop := l.during(func(ev adapters.Event) { notes <- ev })
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	half := bytes.Index(data, []byte("Attempt 3")) + 10 // two notices and part of the third
	if _, err := f.Write(data[:half]); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if ev := <-notes; ev.Type != adapters.EventError || ev.Error.Status != 500 {
			t.Fatalf("event %+v, want gemini's 500 retry", ev)
		}
	}
	if _, err := f.Write(data[half:]); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if ev := <-notes; ev.Error.Status != 500 {
			t.Fatalf("event %+v, want gemini's 500 retry", ev)
		}
	}
	stop()
	if len(notes) != 0 {
		t.Fatalf("%d more notices, want 4 in all", len(notes))
	}
}

// noteSession is an ACP session whose turn logs a retry as gemini does
// and ends with what is noted into it from outside ACP.
type noteSession struct {
	scriptSession
	log   string // GEMINI_DEBUG_LOG_FILE as gemini got it
	noted chan adapters.Event
}

func (s *noteSession) Note(ev adapters.Event) { s.noted <- ev }

func (s *noteSession) Prompt(_ context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	line := "[2026-11-27T03:47:12.084Z] [WARN] Attempt 1 failed with status 503. Retrying with backoff... _ApiError: busy\n"
	if err := os.WriteFile(s.log, []byte(line), 0o600); err != nil {
		return "", err
	}
	emit(<-s.noted)
	return adapters.StopEndTurn, nil
}

// gemini started by the adapter writes its debug log where hub follows it
// during a turn, and the log goes with the session.
func TestWrapStart_RetriesReachTheTurn(t *testing.T) {
	t.Setenv(debugLogEnv, "")
	inner := &noteSession{noted: make(chan adapters.Event)}
	start := func(_ context.Context, o adapters.SessionOptions) (adapters.Session, error) {
		inner.log = o.Env[debugLogEnv]
		return inner, nil
	}
	s, err := wrapStart(nil, false, zerolog.Nop())(context.Background(), adapters.SessionOptions{}, start)
	if err != nil || inner.log == "" {
		t.Fatalf("start: %v, debug log %q", err, inner.log)
	}
	var evs []adapters.Event
	if _, err := s.Prompt(context.Background(), nil, func(ev adapters.Event) { evs = append(evs, ev) }); err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Type != adapters.EventError || evs[0].Error.Status != 503 || evs[0].Error.Code != adapters.CodeProvider {
		t.Fatalf("events %+v, want gemini's 503 retry", evs)
	}
	_ = s.Close()
	if _, err := os.Stat(filepath.Dir(inner.log)); !os.IsNotExist(err) {
		t.Fatalf("the debug log's directory outlived the session: %v", err)
	}
}

// gemini on the stream-json channel (no --acp) logs its retries as it
// does on ACP, and the turn gets them while gemini still retries: the
// fake logs one and hangs, and only the retry ends the turn here (a
// retry that never came would end it at the safety deadline instead).
func TestStreamJSON_RetriesReachTheTurn(t *testing.T) {
	t.Setenv(debugLogEnv, "")
	dir := t.TempDir()
	env := hermeticEnv(dir)
	env[fakeEnv] = "1"
	env[fakeRetryEnv] = "[2026-11-27T03:47:12.084Z] [WARN] Attempt 1 failed with status 429. Retrying with backoff... _ApiError: quota"
	a := New(config.AgentConfig{Command: config.Command{os.Args[0], "--acp"}, Env: env}, "test", zerolog.Nop())
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var retry *adapters.ErrorInfo
	_, err = s.Prompt(ctx, adapters.TextPrompt("go"), func(ev adapters.Event) {
		if ev.Type == adapters.EventError && retry == nil {
			retry = ev.Error
			cancel()
		}
	})
	if retry == nil || retry.Status != 429 || retry.Code != adapters.CodeRateLimit || retry.Fatal {
		t.Fatalf("first error %+v (prompt: %v), want gemini's 429 retry", retry, err)
	}
}

// A debug log the user names stays theirs: gemini writes there, hub
// follows it and never deletes it.
func TestRetryLog_UsersOwnLog(t *testing.T) {
	own := filepath.Join(t.TempDir(), "mine.log")
	if err := os.WriteFile(own, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l, env := newRetryLog([]string{debugLogEnv + "=" + own}, nil)
	l.remove()
	if l.path != own || env[debugLogEnv] != "" {
		t.Fatalf("log %+v env %v", l, env)
	}
	if _, err := os.Stat(own); err != nil {
		t.Fatalf("the user's log is gone: %v", err)
	}
}
