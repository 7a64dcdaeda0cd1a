//go:build e2e && unix

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/internal/mockllm"
)

// Resume after a hub restart: a second hub process, on the first one's HOME
// and state dirs, resumes the session and the agent CLI continues its own
// conversation (the model's next request carries the first turn).

const (
	resumeFirst  = "resume-first-prompt"
	resumeSecond = "resume-second-prompt"
)

// resumeCase is one agent: its hub config, a hook to prepare HOME, and the
// bodies of the requests its mock received so far.
type resumeCase struct {
	cfg    string
	prep   func(home string)
	bodies func() [][]byte
}

func resumeBodies[R any](reqs []R, body func(R) []byte) [][]byte {
	out := make([][]byte, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, body(r))
	}
	return out
}

func resumeRun(t *testing.T, c resumeCase) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	if c.prep != nil {
		c.prep(home)
	}
	h1 := startHubIn(t, home, c.cfg, nil)
	h1.initialize(map[string]any{})
	sid := h1.newSession(cwd)
	stop, ups, err := h1.prompt(sid, resumeFirst)
	if err != nil || stop != "end_turn" || !strings.Contains(e2eText(ups), "alpha") {
		t.Fatalf("first prompt: stop=%q err=%v text=%q\nhub stderr:\n%s", stop, err, e2eText(ups), e2eTail(h1.stderr(), 40))
	}
	h1.close()
	if os.Getenv("RESUME_DEBUG") != "" {
		_ = os.CopyFS(os.Getenv("RESUME_DEBUG"), os.DirFS(home))
		_ = filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && !strings.Contains(p, "node_modules") {
				t.Logf("state: %s %d", p, fi.Size())
			}
			return nil
		})
	}

	h2 := startHubIn(t, home, c.cfg, nil)
	init := h2.initialize(map[string]any{})
	method := "session/load"
	if caps, _ := init["agentCapabilities"].(map[string]any); caps != nil {
		if sc, _ := caps["sessionCapabilities"].(map[string]any); sc["resume"] != nil {
			method = "session/resume"
		}
	}
	if _, err := h2.call(method, map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}}); err != nil {
		t.Fatalf("%s after restart: %v\nhub stderr:\n%s", method, err, e2eTail(h2.stderr(), 40))
	}
	stop, ups, err = h2.prompt(sid, resumeSecond)
	if err != nil || stop != "end_turn" || !strings.Contains(e2eText(ups), "beta") {
		t.Fatalf("prompt after %s: stop=%q err=%v text=%q\nhub stderr:\n%s", method, stop, err, e2eText(ups), e2eTail(h2.stderr(), 40))
	}
	// History an agent replays while it loads belongs to the load, never
	// to the next prompt's answer.
	if strings.Contains(e2eText(ups), "alpha") {
		t.Fatalf("the answer after %s replays the first turn: %q", method, e2eText(ups))
	}
	if msg := resumeCheckHistory(c.bodies()); msg != "" {
		t.Fatalf("%s\nsecond hub stderr:\n%s", msg, e2eTail(h2.stderr(), 60))
	}
}

// resumeCheckHistory finds the model request of the second prompt and wants
// the first prompt and its answer in it; it returns what is wrong, or "".
func resumeCheckHistory(bodies [][]byte) string {
	for _, b := range bodies {
		if !bytes.Contains(b, []byte(resumeSecond)) {
			continue
		}
		if !bytes.Contains(b, []byte(resumeFirst)) || !bytes.Contains(b, []byte("alpha")) {
			return fmt.Sprintf("second model request lacks the first turn (agent started a fresh session):\n%.800s", b)
		}
		return ""
	}
	return fmt.Sprintf("no model request carried the second prompt (%d requests)", len(bodies))
}

func TestResume_Claude(t *testing.T) {
	mock := mockllm.NewAnthropicServer(mockllm.AnthropicTurn{Text: "alpha"}, mockllm.AnthropicTurn{Text: "beta"})
	defer mock.Close()
	resumeRun(t, resumeCase{cfg: claudeHubConfig(t, mock), bodies: func() [][]byte {
		return resumeBodies(mock.Requests(), func(r mockllm.AnthropicRequest) []byte { return r.Body })
	}})
}

func TestResume_Codex(t *testing.T) {
	mock := mockllm.NewResponsesServer(mockllm.ResponsesTurn{Text: "alpha"}, mockllm.ResponsesTurn{Text: "beta"})
	defer mock.Close()
	resumeRun(t, resumeCase{cfg: codexHubConfig(t, mock), bodies: func() [][]byte {
		return resumeBodies(mock.Requests(), func(r mockllm.ResponsesRequest) []byte { return r.Body })
	}})
}

// TestResume_Gemini resumes within the minute the session was created: the
// case where gemini 0.61's session/load would clobber the chat file unless
// the adapter moves it aside first (gemini.MoveAsideChat).
func TestResume_Gemini(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	mock := mockllm.NewGeminiServer(mockllm.GeminiTurn{Text: "alpha"}, mockllm.GeminiTurn{Text: "beta"})
	defer mock.Close()
	resumeRun(t, resumeCase{cfg: geminiHubCfg(bin, mock), prep: func(home string) { geminiSettings(t, home) },
		bodies: func() [][]byte {
			return resumeBodies(mock.Requests(), func(r mockllm.GeminiRequest) []byte { return r.Body })
		}})
}

func TestResume_Pi(t *testing.T) {
	bin := e2eCLI(t, "pi", "pi")
	mock := mockllm.NewOpenAIServer(mockllm.OpenAITurn{Text: "alpha"}, mockllm.OpenAITurn{Text: "beta"})
	defer mock.Close()
	resumeRun(t, resumeCase{cfg: piHubCfg(bin, piAgentDir(t, mock)), bodies: func() [][]byte {
		return resumeBodies(mock.Requests(), func(r mockllm.OpenAIRequest) []byte { return r.Body })
	}})
}

// After a restart, gemini's first prompt must not stream the previous turn
// (its thought, text and tool call) before the new answer; a first turn
// with a tool call is the case seen replayed.
func TestResume_GeminiToolTurnIsNotReplayed(t *testing.T) {
	bin := e2eCLI(t, "gemini", "gemini")
	first := geminiToolTurn()
	first.Thought = "thinking-alpha"
	mock := mockllm.NewGeminiServer(first, mockllm.GeminiTurn{Text: "alpha done"}, mockllm.GeminiTurn{Text: "beta"})
	defer mock.Close()
	resumeRun(t, resumeCase{cfg: geminiHubCfg(bin, mock), prep: func(home string) { geminiSettings(t, home) },
		bodies: func() [][]byte {
			return resumeBodies(mock.Requests(), func(r mockllm.GeminiRequest) []byte { return r.Body })
		}})
}
