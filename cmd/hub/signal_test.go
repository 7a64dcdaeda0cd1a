//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// hub acp ends on SIGTERM, SIGINT and SIGHUP even while the editor keeps
// stdin open and a turn runs, and reaps its agent's process group. When
// SIGKILL ends hub mid-turn, nothing of the agent's group survives either:
// not the agent, not the child it started.
func TestAcp_SignalEndsServerWithStdinOpen(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			root := isolate(t)
			cwd, pidFile := fakeAgentConfig(t, root, "hang")
			pidFIFO(t, pidFile)
			cmd := exec.Command(os.Args[0], "acp", "--agent", "fake")
			cmd.Dir = cwd
			cmd.Env = append(os.Environ(), "HUB_TEST_MAIN=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() { _ = cmd.Process.Kill() }()

			rpc := newLineClient(stdin, stdout)
			rpc.call(t, 1, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
			var sess struct {
				SessionID string `json:"sessionId"`
			}
			if err := json.Unmarshal(rpc.call(t, 2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, cwd)), &sess); err != nil {
				t.Fatal(err)
			}
			rpc.send(t, 3, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}`, sess.SessionID))
			go func() { // hub must never block writing to its editor
				for rpc.sc.Scan() {
				}
			}()
			agent, child := waitPIDs(t, pidFile)

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				t.Fatalf("hub acp still running 20 s after %v with stdin open", sig)
			}
			for _, pid := range []int{agent, child} {
				proctest.WaitGone(t, pid)
			}
		})
	}
}

// lineClient is a minimal ACP client over hub's stdio.
type lineClient struct {
	w  io.Writer
	sc *bufio.Scanner
}

func newLineClient(w io.Writer, r io.Reader) *lineClient {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	return &lineClient{w: w, sc: sc}
}

func (c *lineClient) send(t *testing.T, id int, method, params string) {
	t.Helper()
	if _, err := fmt.Fprintf(c.w, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
		t.Fatal(err)
	}
}

// call sends a request and returns its result, skipping notifications.
func (c *lineClient) call(t *testing.T, id int, method, params string) json.RawMessage {
	t.Helper()
	c.send(t, id, method, params)
	for c.sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(c.sc.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error)
		}
		return m.Result
	}
	t.Fatalf("%s: no answer (%v)", method, c.sc.Err())
	return nil
}
