package qoder

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/proc/proctest"
)

// A decoder that holds a record back (qodercli's <synthetic> error message)
// must not lose it when the stream ends without the record that decides.
func TestStreamJSON_HeldRecordReleasedAtEnd(t *testing.T) {
	data, err := os.ReadFile("testdata/streamjson-error/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:5], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	sj := acpclient.StreamJSON{Name: "qodercli",
		Argv:       func(string, string, adapters.SessionOptions) []string { return proctest.Command("cat:" + cut) },
		NewDecoder: func() adapters.LineDecoder { return NewQoderDecoder() }}
	s, err := sj.Fallback()(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("x"))
	if err != nil {
		t.Fatal(err)
	}
	evs := fixture.Collect(ch)
	if fixture.Text(evs) == "" {
		t.Fatalf("the held assistant message was lost: %+v", evs)
	}
}
