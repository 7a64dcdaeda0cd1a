package pi

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a fake `pi --mode rpc`: with HUB_PI_FAKE set
// it answers get_state/abort/set_model and replays recorded streams from
// testdata/pi for each prompt.
const (
	fakeEnvScenario = "HUB_PI_FAKE"
	fakeEnvArgs     = "HUB_PI_FAKE_ARGS"
	fakeEnvData     = "HUB_PI_FAKE_DATA"
	fakeEnvSteer    = "HUB_PI_FAKE_STEER" // file the fake appends steered messages to
)

func TestMain(m *testing.M) {
	if sc := os.Getenv(fakeEnvScenario); sc != "" {
		os.Exit(fakePiMain(sc))
	}
	os.Exit(m.Run())
}

// fakeFixture returns the recorded event lines of a case, without responses.
func fakeFixture(name string) [][]byte {
	data, err := os.ReadFile(filepath.Join(os.Getenv(fakeEnvData), name, "stream.jsonl"))
	if err != nil {
		panic(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		if len(l) > 0 && !bytes.Contains(l[:min(len(l), 40)], []byte(`"type":"response"`)) {
			out = append(out, l)
		}
	}
	return out
}

type fakePi struct {
	w       *bufio.Writer
	prompts int
	rest    [][]byte // lines to emit after an abort
	// thinking is the thinking level; level the one set_thinking_level asked.
	thinking, level string
	message         string // the last command's message
}

func (f *fakePi) emit(lines ...[]byte) {
	for _, l := range lines {
		f.w.Write(l)
		f.w.WriteByte('\n')
	}
	f.w.Flush()
}

func (f *fakePi) respond(id, command string, data any) {
	r := map[string]any{"type": "response", "command": command, "success": true}
	if id != "" {
		r["id"] = id
	}
	if data != nil {
		r["data"] = data
	}
	b, _ := json.Marshal(r)
	f.emit(b)
}

func fakePiMain(scenario string) int {
	if p := os.Getenv(fakeEnvArgs); p != "" {
		_ = os.WriteFile(p, []byte(strings.Join(os.Args[1:], "\n")), 0o644)
	}
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println("0.73.1-fake")
		return 0
	}
	if scenario == "exit-at-start" {
		fmt.Fprintln(os.Stderr, "No session found matching 'nope'")
		return 1
	}
	f := &fakePi{w: bufio.NewWriter(os.Stdout)}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var cmd struct{ ID, Type, Level, Message string }
		if json.Unmarshal(in.Bytes(), &cmd) != nil {
			f.emit([]byte(`{"type":"response","command":"parse","success":false,"error":"Failed to parse command"}`))
			continue
		}
		f.level, f.message = cmd.Level, cmd.Message
		if code, exit := f.handle(scenario, cmd.ID, cmd.Type); exit {
			return code
		}
	}
	return 0
}

func (f *fakePi) handle(scenario, id, typ string) (code int, exit bool) {
	switch {
	case scenario == "odd" && typ == "get_state": // a member of each answer of an unexpected type
		f.respond(id, typ, map[string]any{"sessionId": "fake-sess", "sessionFile": 7, "thinkingLevel": "medium",
			"model": map[string]any{"id": "mock-model", "provider": "mock", "contextWindow": "128k", "reasoning": true}})
		return 0, false
	case scenario == "odd" && typ == "get_available_models":
		f.respond(id, typ, map[string]any{"models": []any{map[string]any{"id": "mock-model", "name": 5, "provider": "mock"}}})
		return 0, false
	case scenario == "odd" && typ == "get_commands":
		f.respond(id, typ, map[string]any{"commands": []any{map[string]any{"name": "review", "description": 1}}})
		return 0, false
	}
	switch typ {
	case "get_state":
		f.respond(id, typ, map[string]any{"sessionId": "fake-sess", "sessionFile": "/tmp/fake-sess.jsonl", "thinkingLevel": cmp.Or(f.thinking, "medium"),
			"model": map[string]any{"id": "mock-model", "provider": "mock", "contextWindow": 128000, "reasoning": true}})
	case "get_available_models":
		f.respond(id, typ, map[string]any{"models": []any{
			map[string]any{"id": "mock-model", "name": "Mock", "provider": "mock", "reasoning": true},
			map[string]any{"id": "other-model", "name": "Other", "provider": "mock"}}})
	case "get_commands":
		f.respond(id, typ, map[string]any{"commands": []any{map[string]any{"name": "review", "description": "a prompt template"}}})
	case "set_thinking_level":
		f.thinking = f.level
		f.respond(id, typ, nil)
	case "abort":
		f.emit(f.rest...)
		f.rest = nil
		f.respond(id, typ, nil)
	case "set_model":
		f.respond(id, typ, nil)
	case "steer": // taken into the paused turn, which then ends
		if p := os.Getenv(fakeEnvSteer); p != "" {
			_ = os.WriteFile(p, []byte(f.message), 0o644)
		}
		f.respond(id, typ, nil)
		f.emit(f.rest...)
		f.rest = nil
	case "prompt":
		if scenario == "no-key" {
			f.emit([]byte(`{"id":"` + id + `","type":"response","command":"prompt","success":false,"error":"No API key found for mock. Set MOCK_API_KEY or run /login."}`))
			return 0, false
		}
		f.respond(id, typ, nil)
		f.prompts++
		return f.prompt(scenario)
	}
	return 0, false
}

func (f *fakePi) prompt(scenario string) (int, bool) {
	switch {
	case scenario == "tool":
		f.emit(fakeFixture("tool-use")...)
	case scenario == "retry":
		f.emit(fakeFixture("rate-limit")...)
	case scenario == "no-retry":
		f.emit(fakeFixture("rate-limit-no-retry")...)
	case scenario == "unknown":
		f.emit([]byte(`{"type":"agent_settled","aborted":false}`))
		f.emit(fakeFixture("text")...)
	case scenario == "abort" && f.prompts == 1:
		lines := fakeFixture("abort-mid-tool")
		for i, l := range lines {
			if bytes.Contains(l, []byte(`"text":"start\n"`)) {
				f.emit(lines[:i+1]...)
				f.rest = lines[i+1:]
				return 0, false
			}
		}
		panic("abort fixture has no tool output")
	case scenario == "crash":
		f.emit(fakeFixture("text")[:3]...)
		fmt.Fprintln(os.Stderr, "warming up")
		fmt.Fprintln(os.Stderr, "fatal: provider exploded")
		return 3, true
	case scenario == "mute": // closes its output and lingers, deaf to stdin
		f.emit(fakeFixture("text")[:3]...)
		fmt.Fprintln(os.Stderr, "fatal: stdout lost")
		_ = os.Stdout.Close()
		time.Sleep(time.Hour)
	default:
		f.emit(fakeFixture("text")...)
	}
	return 0, false
}
