//go:build windows

package windows

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// fakeAgent is a small ACP agent. Its prompts: "perm" asks to write x.txt
// and says whether it was allowed; "wait" answers only a cancel; "child"
// starts a child process, writes both pids to $HUB_WINE_PIDFILE, says
// "spawned" and never answers; anything else answers "echo-ok".
func fakeAgent(in io.Reader, out io.Writer) {
	a := &agent{out: json.NewEncoder(out)}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			a.handle(m)
		}
	}
}

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

type agent struct {
	mu      sync.Mutex
	out     *json.Encoder
	cwd     string
	waiting json.RawMessage // the prompt a cancel ends
	asking  json.RawMessage // the prompt the permission answer ends
}

func (a *agent) send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	a.mu.Lock()
	defer a.mu.Unlock()
	a.out.Encode(v)
}

func (a *agent) reply(id json.RawMessage, result any) {
	a.send(map[string]any{"id": id, "result": result})
}

func (a *agent) say(sid, text string) {
	a.send(map[string]any{"method": "session/update", "params": map[string]any{"sessionId": sid,
		"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}}})
}

func (a *agent) handle(m message) {
	var p struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
		Prompt    []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		a.reply(m.ID, map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{"loadSession": true}, "authMethods": []any{}})
	case "session/new":
		a.cwd = p.Cwd
		a.reply(m.ID, map[string]any{"sessionId": "fake-1"})
	case "session/load":
		a.reply(m.ID, map[string]any{})
	case "session/cancel":
		if a.waiting != nil {
			a.reply(a.waiting, map[string]any{"stopReason": "cancelled"})
			a.waiting = nil
		}
	case "session/prompt":
		text := ""
		if len(p.Prompt) > 0 {
			text = p.Prompt[0].Text
		}
		a.prompt(m.ID, p.SessionID, text)
	case "":
		a.answered(m)
	default:
		if len(m.ID) > 0 {
			a.send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
}

func (a *agent) prompt(id json.RawMessage, sid, text string) {
	switch {
	case strings.Contains(text, "perm"):
		a.asking = id
		a.send(map[string]any{"id": 900, "method": "session/request_permission", "params": map[string]any{"sessionId": sid,
			"toolCall": map[string]any{"toolCallId": "t1", "title": "Write x.txt", "kind": "edit",
				"locations": []any{map[string]any{"path": filepath.Join(a.cwd, "x.txt")}}},
			"options": []any{
				map[string]any{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
				map[string]any{"optionId": "no", "name": "Reject", "kind": "reject_once"},
			}}})
	case strings.Contains(text, "wait"):
		a.waiting = id
		a.say(sid, "waiting")
	case strings.Contains(text, "child"):
		a.spawn(sid)
	default:
		a.say(sid, "echo-ok")
		a.reply(id, map[string]any{"stopReason": "end_turn"})
	}
}

// answered ends the prompt that asked for permission with the outcome.
func (a *agent) answered(m message) {
	if a.asking == nil {
		return
	}
	var r struct {
		Outcome struct {
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	json.Unmarshal(m.Result, &r)
	verdict := "rejected"
	if r.Outcome.OptionID == "yes" {
		verdict = "allowed"
	}
	a.say("fake-1", verdict)
	a.reply(a.asking, map[string]any{"stopReason": "end_turn"})
	a.asking = nil
}

func (a *agent) spawn(sid string) {
	self, _ := os.Executable()
	child := exec.Command(self)
	child.Env = append(os.Environ(), fakeEnv+"=child")
	if err := child.Start(); err != nil {
		a.say(sid, "spawn failed: "+err.Error())
		return
	}
	os.WriteFile(os.Getenv(pidFileEnv), fmt.Appendf(nil, "%d %d", os.Getpid(), child.Process.Pid), 0o644)
	a.say(sid, "spawned")
}
