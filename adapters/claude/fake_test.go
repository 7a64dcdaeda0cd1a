package claude

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// The test binary doubles as a fake claude: when HUB_FAKE_CLAUDE names a
// scenario, TestMain runs claudeFake instead of the tests. It speaks the
// stream-json protocol the way claude 2.1.330 does (shapes copied from
// recorded streams) and reads control responses from stdin.

const fakeSession = "fake-session-1"

// initializeJSON is claude 2.1.330's answer to initialize, trimmed.
//
//go:embed testdata/initialize.json
var initializeJSON []byte

type fake struct {
	in  *bufio.Scanner
	out *bufio.Writer
	// total is the session's cost so far, which results tell: like claude,
	// a --resume'd session restores the earlier processes' (fakeRestored).
	total float64
}

const fakeRestored = 0.05

func (f *fake) send(v any) {
	b, _ := json.Marshal(v)
	f.out.Write(append(b, '\n'))
	f.out.Flush()
}

func (f *fake) recv() map[string]any {
	if !f.in.Scan() {
		os.Exit(0)
	}
	var m map[string]any
	_ = json.Unmarshal(f.in.Bytes(), &m)
	return m
}

func (f *fake) init() {
	f.send(map[string]any{"type": "system", "subtype": "init", "session_id": fakeSession, "model": "claude-fake",
		"claude_code_version": "2.1.330", "slash_commands": []string{"compact"}})
}

func (f *fake) text(msg, s string) {
	f.send(map[string]any{"type": "stream_event", "api_message_id": msg, "session_id": fakeSession,
		"event": map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": s}}})
	f.send(map[string]any{"type": "assistant", "session_id": fakeSession,
		"message": map[string]any{"id": msg, "content": []any{map[string]any{"type": "text", "text": s}}}})
}

func (f *fake) result(subtype, terminal string, isErr bool) {
	f.total += 0.01
	f.send(map[string]any{"type": "result", "subtype": subtype, "is_error": isErr, "terminal_reason": terminal,
		"session_id": fakeSession, "total_cost_usd": f.total, "usage": map[string]any{"input_tokens": 3, "output_tokens": 2}})
}

func (f *fake) toolUse(id, cmd string) {
	f.send(map[string]any{"type": "assistant", "session_id": fakeSession, "message": map[string]any{"id": "msg_tool",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}}})
}

// initialize answers the initialize control request like claude 2.1.330
// does (trimmed to what hub reads; see testdata/initialize.json).
func (f *fake) initialize(id any) {
	var res map[string]any
	_ = json.Unmarshal(initializeJSON, &res)
	f.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": res}})
}

func userText(m map[string]any) string {
	msg, _ := m["message"].(map[string]any)
	blocks, _ := msg["content"].([]any)
	var s []string
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok {
			s = append(s, fmt.Sprint(bm["text"]))
		}
	}
	return strings.Join(s, " ")
}

func claudeFake(scenario string) {
	if path := os.Getenv("HUB_FAKE_CLAUDE_ARGS"); path != "" {
		b, _ := json.Marshal(os.Args[1:])
		_ = os.WriteFile(path, b, 0o644)
	}
	if path := os.Getenv("HUB_FAKE_CLAUDE_ENV"); path != "" {
		_ = os.WriteFile(path, []byte(os.Getenv(keepCwd)), 0o644)
	}
	if scenario == "exit-at-once" || scenario == "gone" {
		fmt.Fprintln(os.Stderr, "boom: bad config")
		if scenario == "gone" { // hub meets a broken pipe or the end of the output before the exit
			_, _ = os.Stdin.Close(), os.Stdout.Close()
		}
		os.Exit(3)
	}
	f := &fake{in: bufio.NewScanner(os.Stdin), out: bufio.NewWriter(os.Stdout)}
	f.in.Buffer(nil, 1<<20)
	if slices.Contains(os.Args, "--resume") {
		f.total = fakeRestored
	}
	for turn := 0; ; {
		m := f.recv()
		req, _ := m["request"].(map[string]any)
		if m["type"] == "control_request" && req["subtype"] == "initialize" {
			f.initialize(m["request_id"])
			continue
		}
		if m["type"] == "control_request" && req["subtype"] == "get_usage" { // claude 2.1.330's answer, trimmed
			f.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": m["request_id"],
				"response": map[string]any{"session": map[string]any{"total_cost_usd": f.total}}}})
			continue
		}
		if m["type"] != "user" {
			continue
		}
		turn++
		f.init()
		switch scenario {
		case "text":
			f.text(fmt.Sprintf("msg_%d", turn), fmt.Sprintf("echo %d: %s", turn, userText(m)))
			f.result("success", "completed", false)
		case "unknown":
			f.send(map[string]any{"type": "brand_new_thing", "n": 1})
			f.send(map[string]any{"type": "brand_new_thing", "n": 2})
			f.send(map[string]any{"type": "rate_limit_event", "rate_limit_info": map[string]any{"status": "allowed"}})
			f.text(fmt.Sprintf("msg_%d", turn), "ok")
			f.result("success", "completed", false)
		case "permission":
			f.fakePermission()
		case "ask":
			f.fakeAsk()
		case "cancel":
			f.fakeCancel()
		case "crash":
			f.text("msg_1", "working")
			fmt.Fprintln(os.Stderr, "Error: something exploded\n    at fake (fake.js:1)")
			os.Exit(3)
		case "mute": // closes its output and keeps running, deaf to stdin's end
			f.text("msg_1", "working")
			fmt.Fprintln(os.Stderr, "Error: stdout lost")
			_ = os.Stdout.Close()
			time.Sleep(time.Hour)
		case "hang":
			f.toolUse("toolu_h", "sleep 100")
			time.Sleep(time.Hour)
		case "deaf": // takes no interrupt: its input is closed, its output open
			_ = os.Stdin.Close()
			f.toolUse("toolu_h", "sleep 100")
			time.Sleep(time.Hour)
		case "steer-join", "steer-later":
			f.fakeSteer(scenario, m)
		}
	}
}

// fakeAsk asks an AskUserQuestion and reports what claude got back.
func (f *fake) fakeAsk() {
	input := map[string]any{"questions": []any{map[string]any{"question": "Which language?", "header": "Language", "multiSelect": false,
		"options": []any{map[string]any{"label": "Go", "description": "fast builds"}, map[string]any{"label": "Rust", "description": ""}}}}}
	f.send(map[string]any{"type": "assistant", "session_id": fakeSession, "message": map[string]any{"id": "msg_ask",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_q", "name": "AskUserQuestion", "input": input}}}})
	f.send(map[string]any{"type": "control_request", "request_id": "req_q", "request": map[string]any{
		"subtype": "can_use_tool", "tool_name": "AskUserQuestion", "tool_use_id": "toolu_q", "input": input}})
	var r map[string]any
	for {
		m := f.recv()
		if m["type"] == "control_response" {
			r = m["response"].(map[string]any)["response"].(map[string]any)
			break
		}
	}
	result := map[string]any{"type": "tool_result", "tool_use_id": "toolu_q"}
	if r["behavior"] == "allow" {
		b, _ := json.Marshal(r["updatedInput"].(map[string]any)["answers"])
		result["content"] = "answered " + string(b)
	} else {
		result["content"], result["is_error"] = fmt.Sprint("denied: ", r["message"]), true
	}
	f.send(map[string]any{"type": "user", "session_id": fakeSession, "message": map[string]any{"role": "user", "content": []any{result}}})
	f.result("success", "completed", false)
}

func (f *fake) fakePermission() {
	f.toolUse("toolu_p", "echo hi > f.txt")
	f.send(map[string]any{"type": "control_request", "request_id": "req_p", "request": map[string]any{
		"subtype": "can_use_tool", "tool_name": "Bash", "tool_use_id": "toolu_p",
		"input": map[string]any{"command": "echo hi > f.txt"},
		"permission_suggestions": []any{map[string]any{"type": "addRules", "rules": []any{map[string]any{"toolName": "Bash", "ruleContent": "echo:*"}}, "behavior": "allow", "destination": "localSettings"},
			map[string]any{"type": "setMode", "mode": "acceptEdits", "destination": "session"}}}})
	var resp map[string]any
	for {
		m := f.recv()
		if m["type"] == "control_response" {
			resp = m["response"].(map[string]any)
			break
		}
	}
	r := resp["response"].(map[string]any)
	result := map[string]any{"type": "tool_result", "tool_use_id": "toolu_p"}
	if resp["request_id"] == "req_p" && r["behavior"] == "allow" {
		in, _ := json.Marshal(r["updatedInput"])
		result["content"] = "ran " + string(in)
		if rules, ok := r["updatedPermissions"]; ok {
			b, _ := json.Marshal(rules)
			result["content"] = "ran " + string(in) + " rules " + string(b)
		}
	} else {
		result["content"], result["is_error"] = fmt.Sprint("denied: ", r["message"]), true
	}
	f.send(map[string]any{"type": "user", "session_id": fakeSession, "message": map[string]any{"role": "user", "content": []any{result}}})
	f.result("success", "completed", false)
}

func (f *fake) fakeCancel() {
	f.toolUse("toolu_c", "sleep 100")
	for {
		m := f.recv()
		req, _ := m["request"].(map[string]any)
		if m["type"] == "control_request" && req["subtype"] == "interrupt" {
			f.send(map[string]any{"type": "control_response", "response": map[string]any{
				"subtype": "success", "request_id": m["request_id"], "response": map[string]any{}}})
			break
		}
	}
	f.send(map[string]any{"type": "user", "session_id": fakeSession, "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_c", "content": "Interrupted", "is_error": true}}}})
	f.result("error_during_execution", "aborted_tools", true)
}

func (f *fake) lifecycle(m map[string]any, state string) {
	f.send(map[string]any{"type": "command_lifecycle", "command_uuid": m["uuid"], "state": state, "session_id": fakeSession})
}

// fakeSteer answers a prompt, waits for a message steered into the turn,
// and takes it as claude 2.1.330 does: into the running cycle after the
// tool call ("steer-join": one result), or after the model had finished,
// as a cycle of its own ("steer-later": a second result).
func (f *fake) fakeSteer(scenario string, prompt map[string]any) {
	f.lifecycle(prompt, "started")
	f.text("msg_1", "working;")
	var steer map[string]any
	for steer == nil {
		if m := f.recv(); m["type"] == "user" {
			steer = m
		}
	}
	f.lifecycle(steer, "queued")
	if scenario == "steer-later" {
		f.result("success", "completed", false)
		f.lifecycle(prompt, "completed")
	}
	f.lifecycle(steer, "started")
	f.text("msg_2", "answering "+userText(steer)+";")
	if scenario == "steer-join" {
		f.lifecycle(steer, "completed")
	}
	f.result("success", "completed", false)
}
