package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// The test binary doubles as a fake gemini: with HUB_GEMINI_FAKE=1 TestMain
// runs fakeGemini instead of the tests. `--version` prints
// HUB_GEMINI_FAKE_VERSION; `--acp` replays the recorded ACP stream named
// by HUB_GEMINI_FAKE_ACP (or fails the handshake without one); `-o
// stream-json` prints the file named by HUB_GEMINI_FAKE_STREAM.
const (
	fakeEnv        = "HUB_GEMINI_FAKE"
	fakeVersionEnv = "HUB_GEMINI_FAKE_VERSION"
	fakeACPEnv     = "HUB_GEMINI_FAKE_ACP"
	fakeStreamEnv  = "HUB_GEMINI_FAKE_STREAM"
	// fakeEnvFile names a file the fake writes its GEMINI_PTY_INFO to.
	fakeEnvFile = "HUB_GEMINI_FAKE_ENVFILE"
	// fakeArgsFile names a file the fake writes its arguments to.
	fakeArgsFile = "HUB_GEMINI_FAKE_ARGSFILE"
	// fakeRetryEnv, with `-o stream-json`, is a line the fake writes to
	// its debug log before it hangs.
	fakeRetryEnv = "HUB_GEMINI_FAKE_RETRY"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakeGemini(os.Args[1:]))
	}
	proctest.Main(m, nil)
}

func fakeGemini(args []string) int {
	if f := os.Getenv(fakeEnvFile); f != "" {
		v, ok := os.LookupEnv(ptyInfoEnv)
		_ = os.WriteFile(f, fmt.Appendf(nil, "%v %s", ok, v), 0o644)
	}
	if f := os.Getenv(fakeArgsFile); f != "" && !slices.Contains(args, "--version") {
		_ = os.WriteFile(f, []byte(strings.Join(args, " ")), 0o644)
	}
	switch {
	case slices.Contains(args, "--version"):
		fmt.Println(os.Getenv(fakeVersionEnv))
	case slices.Contains(args, "--acp"):
		if os.Getenv(fakeACPEnv) == "" {
			fmt.Fprintln(os.Stderr, "fake gemini: no ACP here")
			return 1
		}
		replayACP(os.Getenv(fakeACPEnv))
	case slices.Contains(args, "stream-json") && os.Getenv(fakeRetryEnv) != "":
		// a model call failing for good: the retry goes to the debug log
		// and the prompt waits until hub stops it
		if err := os.WriteFile(os.Getenv(debugLogEnv), []byte(os.Getenv(fakeRetryEnv)+"\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for {
			time.Sleep(time.Hour)
		}
	case slices.Contains(args, "stream-json"):
		data, err := os.ReadFile(os.Getenv(fakeStreamEnv))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_, _ = os.Stdout.Write(data)
	default:
		fmt.Fprintln(os.Stderr, "fake gemini: unexpected args", args)
		return 2
	}
	return 0
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// recordedRequests are the client requests the recorder (e2e
// geminirec_test.go) sent, by id.
var recordedRequests = []string{1: "initialize", 2: "session/new", 3: "session/prompt"}

// replayACP plays a recorded gemini --acp stdout against the client on
// stdin: a recorded response answers the client's request of the same
// method (with the client's id), and the next recorded line waits for the
// request the recorder sent next; a recorded agent request waits for the
// client's answer.
func replayACP(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	in := make(chan fakeMsg)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m fakeMsg
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				in <- m
			}
		}
		close(in)
	}()
	await := func(match func(fakeMsg) bool) json.RawMessage {
		for m := range in {
			if match(m) {
				return m.ID
			}
		}
		os.Exit(0) // the client went away
		return nil
	}
	request := func(method string) func(fakeMsg) bool {
		return func(m fakeMsg) bool { return m.Method == method && len(m.ID) > 0 }
	}
	ids := map[string]json.RawMessage{"initialize": await(request("initialize"))}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m fakeMsg
		_ = json.Unmarshal(line, &m)
		switch {
		case m.Method == "" && len(m.ID) > 0:
			var n int
			_ = json.Unmarshal(m.ID, &n)
			var rec map[string]json.RawMessage
			_ = json.Unmarshal(line, &rec)
			rec["id"] = ids[recordedRequests[n]]
			line, _ = json.Marshal(rec)
			fmt.Printf("%s\n", line)
			if n+1 < len(recordedRequests) {
				next := recordedRequests[n+1]
				ids[next] = await(request(next))
			}
		case m.Method != "" && len(m.ID) > 0:
			fmt.Printf("%s\n", line)
			id := string(m.ID)
			await(func(r fakeMsg) bool { return r.Method == "" && string(r.ID) == id })
		default:
			fmt.Printf("%s\n", line)
		}
	}
	for range in {
	}
}

// fixture is the absolute path of a recorded gemini stream.
func recorded(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name, "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hermeticEnv keeps gemini's settings lookup inside dir (and spares the
// race-built fake the race runtime's one-second sleep at exit).
func hermeticEnv(dir string) map[string]string {
	return map[string]string{
		"GORACE": "atexit_sleep_ms=0",
		"HOME":   dir, "GEMINI_CLI_HOME": "",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(dir, "system", "settings.json"),
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "",
	}
}
