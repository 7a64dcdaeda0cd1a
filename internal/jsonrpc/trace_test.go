package jsonrpc

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// At debug level every message is logged both ways, secrets redacted.
func TestConn_DebugLogsEveryMessageRedacted(t *testing.T) {
	var logs syncBuf
	p := newPeer(t, Options{Request: echo, Logger: zerolog.New(&logs).Level(zerolog.DebugLevel)})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"mcpServers":[{"name":"gh","env":[{"name":"GITHUB_TOKEN","value":"ghp_SECRET1"}],"headers":[{"name":"Authorization","value":"Bearer SECRET2"}]}],"apiKey":"sk-SECRET3"}}`)
	p.next()
	got := logs.String()
	for _, want := range []string{`"rpc":"in"`, `"rpc":"out"`, `"GITHUB_TOKEN"`, `session/new`} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "SECRET") {
		t.Errorf("a secret reached the log:\n%s", got)
	}
}
