//go:build e2e && unix

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	pngenc "image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/claude"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/mockllm"
)

// claudeEnv points claude at the mock and keeps it off the network.
func claudeEnv(mock *mockllm.AnthropicServer) map[string]string {
	return map[string]string{
		"ANTHROPIC_BASE_URL":                       mock.URL,
		"ANTHROPIC_API_KEY":                        "sk-mock",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
	}
}

// claudeDirect starts a session with the adapter in-process (no hub), with
// HOME in a temp dir.
func claudeDirect(t *testing.T, mock *mockllm.AnthropicServer, opts adapters.SessionOptions) adapters.Session {
	t.Helper()
	bin := e2eCLI(t, "claude", "claude")
	t.Setenv("HOME", t.TempDir())
	a := claude.New(config.AgentConfig{Command: config.Command{bin}, Env: claudeEnv(mock)}, zerolog.New(os.Stderr))
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	s, err := a.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func claudeDrain(t *testing.T, ch <-chan adapters.Event, decide func(*adapters.PermissionRequest)) []adapters.Event {
	t.Helper()
	var out []adapters.Event
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			if ev.Type == adapters.EventPermission {
				decide(ev.Permission)
			}
			out = append(out, ev)
		case <-deadline:
			t.Fatalf("turn did not end: %v", out)
		}
	}
}

func claudeText(evs []adapters.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == adapters.EventText {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func claudeDump(t *testing.T, evs []adapters.Event) string {
	b, _ := json.Marshal(evs)
	return string(b)
}

func TestClaudeAdapter_PermissionAndResume(t *testing.T) {
	mock := mockllm.NewAnthropicServer(
		mockllm.AnthropicTurn{Thinking: "Need a file.", Text: "Writing the file.", ToolUses: []mockllm.AnthropicToolUse{
			{Name: "Bash", Input: `{"command":"echo hi > f.txt","description":"write f.txt"}`}}},
		mockllm.AnthropicTurn{Text: "Done writing."},
		mockllm.AnthropicTurn{Text: "Second turn."},
	)
	defer mock.Close()
	cwd := t.TempDir()
	s := claudeDirect(t, mock, adapters.SessionOptions{Cwd: cwd})
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("write f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	evs := claudeDrain(t, ch, func(p *adapters.PermissionRequest) { p.Respond(adapters.PermissionDecision{Kind: adapters.AllowOnce}) })
	t.Logf("events: %s", claudeDump(t, evs))
	if got, _ := os.ReadFile(filepath.Join(cwd, "f.txt")); string(got) != "hi\n" {
		t.Errorf("f.txt = %q", got)
	}
	if !strings.Contains(claudeText(evs), "Done writing.") {
		t.Errorf("text = %q", claudeText(evs))
	}
	ch, err = fixture.Prompt(context.Background(), s, adapters.TextPrompt("again"))
	if err != nil {
		t.Fatal(err)
	}
	evs2 := claudeDrain(t, ch, func(p *adapters.PermissionRequest) { p.Respond(adapters.PermissionDecision{Kind: adapters.RejectOnce}) })
	if !strings.Contains(claudeText(evs2), "Second turn.") {
		t.Errorf("turn 2: %s", claudeDump(t, evs2))
	}
	reqs := mock.Requests()
	if n := len(reqs[len(reqs)-1].Messages); n < 4 {
		t.Errorf("second turn sent %d messages; the session history was lost", n)
	}
}

// claudeHubConfig is a hub user config that runs the pinned claude against
// the mock.
func claudeHubConfig(t *testing.T, mock *mockllm.AnthropicServer) string {
	return claudeHubConfigFor(e2eCLI(t, "claude", "claude"), mock)
}

// claudeHubConfigFor is claudeHubConfig running the claude at bin.
func claudeHubConfigFor(bin string, mock *mockllm.AnthropicServer) string {
	var env strings.Builder
	for k, v := range claudeEnv(mock) {
		env.WriteString(k + " = " + strconvQuote(v) + "\n")
	}
	return "default_agent = \"claude\"\n[agents.claude]\ncommand = " + strconvQuote(bin) + "\n[agents.claude.env]\n" + env.String()
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// claudeUpdatesOf returns the updates whose sessionUpdate is kind.
func claudeUpdatesOf(updates []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, u := range updates {
		if u["sessionUpdate"] == kind {
			out = append(out, u)
		}
	}
	return out
}

func claudeChunkText(updates []map[string]any) string {
	var b strings.Builder
	for _, u := range claudeUpdatesOf(updates, "agent_message_chunk") {
		if c, ok := u["content"].(map[string]any); ok {
			b.WriteString(c["text"].(string))
		}
	}
	return b.String()
}

// claudeToolStatus returns the last status reported for a tool call id.
func claudeToolStatus(updates []map[string]any, id string) string {
	status := ""
	for _, u := range updates {
		if (u["sessionUpdate"] == "tool_call" || u["sessionUpdate"] == "tool_call_update") && u["toolCallId"] == id {
			if s, ok := u["status"].(string); ok {
				status = s
			}
		}
	}
	return status
}

func TestClaudeHub_ToolsPermissionsAndContinuation(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewAnthropicServer(
		mockllm.AnthropicTurn{Text: "Creating f.txt.", ToolUses: []mockllm.AnthropicToolUse{
			{ID: "toolu_allow", Name: "Bash", Input: `{"command":"echo hi > f.txt","description":"write f.txt"}`}}},
		mockllm.AnthropicTurn{Text: "Created."},
		mockllm.AnthropicTurn{Text: "Trying g.txt.", ToolUses: []mockllm.AnthropicToolUse{
			{ID: "toolu_reject", Name: "Write", Input: `{"file_path":` + strconvQuote(filepath.Join(cwd, "g.txt")) + `,"content":"no\n"}`}}},
		mockllm.AnthropicTurn{Text: "Understood, not writing."},
	)
	defer mock.Close()
	h := startHub(t, claudeHubConfig(t, mock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)

	h.setPermissionHandler(func(map[string]any) string { return "allow_once" })
	stop, updates, err := h.prompt(sid, "create f.txt")
	if err != nil || stop != "end_turn" {
		t.Fatalf("turn 1: stop=%q err=%v\n%s", stop, err, e2eTail(h.stderr(), 30))
	}
	if got := claudeChunkText(updates); !strings.Contains(got, "Creating f.txt.") || !strings.Contains(got, "Created.") {
		t.Errorf("turn 1 text = %q", got)
	}
	if s := claudeToolStatus(updates, "toolu_allow"); s != "completed" {
		t.Errorf("allowed tool status = %q; updates: %v", s, updates)
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "f.txt")); string(b) != "hi\n" {
		t.Errorf("f.txt = %q", b)
	}
	if n := len(h.permissionRequests()); n != 1 {
		t.Errorf("permission requests after turn 1 = %d, want 1", n)
	}

	h.setPermissionHandler(func(map[string]any) string { return "reject_once" })
	stop, updates, err = h.prompt(sid, "now g.txt")
	if err != nil || stop != "end_turn" {
		t.Fatalf("turn 2: stop=%q err=%v", stop, err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "g.txt")); !os.IsNotExist(err) {
		t.Errorf("rejected Write created g.txt (stat err %v)", err)
	}
	if s := claudeToolStatus(updates, "toolu_reject"); s != "failed" {
		t.Errorf("rejected tool status = %q", s)
	}
	reqs := mock.Requests()
	if len(reqs) != 4 || len(reqs[2].Messages) < 5 {
		t.Errorf("turn 2 did not continue the claude session: %d requests, last has %d messages", len(reqs), len(reqs[len(reqs)-1].Messages))
	}
}

func TestClaudeHub_CancelMidTool(t *testing.T) {
	cwd := t.TempDir()
	mock := mockllm.NewAnthropicServer(
		mockllm.AnthropicTurn{Text: "Waiting.", ToolUses: []mockllm.AnthropicToolUse{
			{ID: "toolu_sleep", Name: "Bash", Input: `{"command":"timeout 31 tail -f /dev/null; echo done > late.txt"}`}}},
		mockllm.AnthropicTurn{Text: "Back again."},
	)
	defer mock.Close()
	h := startHub(t, claudeHubConfig(t, mock), nil)
	h.initialize(nil)
	sid := h.newSession(cwd)
	h.setPermissionHandler(func(map[string]any) string { return "allow_once" })
	res := h.promptAsync(sid, "sleep")
	if _, ok := h.waitUpdate(func(u map[string]any) bool { return u["toolCallId"] == "toolu_sleep" }, time.Minute); !ok {
		select {
		case r := <-res:
			t.Fatalf("turn ended before the tool call: stop=%q err=%v", r.StopReason, r.Err)
		default:
		}
		t.Fatalf("no tool call before cancel\n%s", e2eTail(h.stderr(), 30))
	}
	time.Sleep(500 * time.Millisecond) // let the tool start
	h.cancelAndReap(t, sid, res, "timeout\x0031\x00tail", 5*time.Second)
	stop, updates, err := h.prompt(sid, "are you there")
	if err != nil || stop != "end_turn" || !strings.Contains(claudeChunkText(updates), "Back again.") {
		t.Errorf("prompt after cancel: stop=%q err=%v text=%q", stop, err, claudeChunkText(updates))
	}
	h.close() // asserts the hub exits and leaves no process behind
}

// claudeWaitGone waits until no process's cmdline contains marker and
// returns the pids still matching at the deadline.
func claudeWaitGone(marker string, within time.Duration) []string {
	deadline := time.Now().Add(within)
	for {
		var pids []string
		matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil && strings.Contains(string(b), marker) {
				pids = append(pids, filepath.Base(filepath.Dir(m)))
			}
		}
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestClaudeAdapter_CancelAndConfigure(t *testing.T) {
	mock := mockllm.NewAnthropicServer(
		mockllm.AnthropicTurn{Text: "Waiting.", ToolUses: []mockllm.AnthropicToolUse{
			{Name: "Bash", Input: `{"command":"timeout 31 tail -f /dev/null; echo done > late.txt"}`}}},
		mockllm.AnthropicTurn{Text: "Plan mode now."},
	)
	defer mock.Close()
	cwd := t.TempDir()
	s := claudeDirect(t, mock, adapters.SessionOptions{Cwd: cwd})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("sleep"))
	if err != nil {
		t.Fatal(err)
	}
	var evs []adapters.Event
	for ev := range ch {
		evs = append(evs, ev)
		if ev.Type == adapters.EventPermission {
			ev.Permission.Respond(adapters.PermissionDecision{Kind: adapters.AllowOnce})
			go func() { time.Sleep(time.Second); cancel() }()
		}
	}
	if d := evs[len(evs)-1]; d.StopReason != adapters.StopCancelled {
		t.Fatalf("cancelled turn ended with %+v: %s", d, claudeDump(t, evs))
	}
	if left := claudeWaitGone("timeout\x0031\x00tail", 5*time.Second); len(left) > 0 {
		t.Errorf("cancelled tool still running: pids %v", left)
	}
	c := s.(adapters.Configurable)
	if err := c.SetMode(context.Background(), "plan"); err != nil {
		t.Errorf("SetMode: %v", err)
	}
	if err := c.SetModel(context.Background(), "sonnet"); err != nil {
		t.Errorf("SetModel: %v", err)
	}
	ch, err = fixture.Prompt(context.Background(), s, adapters.TextPrompt("next"))
	if err != nil {
		t.Fatal(err)
	}
	evs = claudeDrain(t, ch, func(p *adapters.PermissionRequest) { p.Respond(adapters.PermissionDecision{Kind: adapters.RejectOnce}) })
	if !strings.Contains(claudeText(evs), "Plan mode now.") {
		t.Errorf("turn after cancel: %s", claudeDump(t, evs))
	}
	reqs := mock.Requests()
	if last := reqs[len(reqs)-1]; last.Model != "sonnet" && !strings.Contains(last.Model, "sonnet") {
		t.Errorf("model after SetModel = %q", last.Model)
	}
}

// TestClaude_ImageURIs prompts the adapter with images given only by URI
// (ACP clients must send data, so only direct callers do this): a file://
// image must reach the API as that file's base64, an https one as a url
// source.
func TestClaude_ImageURIs(t *testing.T) {
	cwd := t.TempDir()
	var png bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	if err := pngenc.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cwd, "red dot.png")
	if err := os.WriteFile(path, png.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	const remote = "https://example.com/diagram.png"
	mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "Two images."})
	defer mock.Close()
	s := claudeDirect(t, mock, adapters.SessionOptions{Cwd: cwd})
	ch, err := fixture.Prompt(context.Background(), s, []adapters.Content{
		{Type: adapters.ContentText, Text: "describe these"},
		{Type: adapters.ContentImage, MimeType: "image/png", URI: (&url.URL{Scheme: "file", Path: path}).String()},
		{Type: adapters.ContentImage, MimeType: "image/png", URI: remote},
	})
	if err != nil {
		t.Fatal(err)
	}
	evs := claudeDrain(t, ch, nil)
	if last := evs[len(evs)-1]; last.Type != adapters.EventDone || last.StopReason != adapters.StopEndTurn {
		t.Fatalf("turn ended %+v", last)
	}
	var sources []map[string]any
	for _, req := range mock.Requests() {
		for _, m := range req.Messages {
			blocks, _ := m["content"].([]any)
			for _, b := range blocks {
				if bm, _ := b.(map[string]any); bm["type"] == "image" {
					src, _ := bm["source"].(map[string]any)
					sources = append(sources, src)
				}
			}
		}
	}
	if len(sources) != 2 {
		t.Fatalf("API got %d image blocks, want 2: %v", len(sources), sources)
	}
	if s := sources[0]; s["type"] != "base64" || s["media_type"] != "image/png" || s["data"] != base64.StdEncoding.EncodeToString(png.Bytes()) {
		t.Errorf("file image source = %v, want the file's base64", s)
	}
	if s := sources[1]; s["type"] != "url" || s["url"] != remote {
		t.Errorf("https image source = %v, want url %s", s, remote)
	}
}
