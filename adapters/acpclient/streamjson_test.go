package acpclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/streamparse"
)

func TestStreamJSON_FallbackSession(t *testing.T) {
	fixture, _ := filepath.Abs("../../testdata/gemini/streamjson-tool/stream.jsonl")
	var argvs [][]string
	sj := StreamJSON{Name: "gemini",
		Argv: func(prompt, resume string, _ adapters.SessionOptions) []string {
			argvs = append(argvs, []string{prompt, resume})
			if prompt == "die" {
				return []string{"sh", "-c", "echo oops >&2; exit 41"}
			}
			return []string{"cat", fixture}
		},
		NewDecoder: func() LineDecoder { return streamparse.NewGeminiDecoder() }}
	s, err := sj.Fallback()(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := s.Prompt(context.Background(), adapters.TextPrompt("first"))
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, ch, nil)
	if got := texts(evs); got != "Running a command now.The command printed hello-from-tool. Done." {
		t.Fatalf("text = %q", got)
	}
	if s.ID() != "2b2c9acb-3d2b-409b-9b42-32152bfe2b5a" || last(evs).StopReason != adapters.StopEndTurn {
		t.Fatalf("id=%q stop=%q", s.ID(), last(evs).StopReason)
	}
	ch, _ = s.Prompt(context.Background(), adapters.TextPrompt("die"))
	evs = collect(t, ch, nil)
	if argvs[1][1] != s.ID() {
		t.Fatalf("second prompt did not resume: %q", argvs[1])
	}
	if e := evs[len(evs)-2]; e.Type != adapters.EventError || !strings.Contains(e.Error.Message, "exit code 41") || e.Error.Detail != "oops" {
		t.Fatalf("error event = %+v", e)
	}
}

// A decoder that holds a record back (qodercli's <synthetic> error message)
// must not lose it when the stream ends without the record that decides.
func TestStreamJSON_HeldRecordReleasedAtEnd(t *testing.T) {
	data, err := os.ReadFile("../../testdata/qodercli/streamjson-error/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:5], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	sj := StreamJSON{Name: "qodercli",
		Argv:       func(string, string, adapters.SessionOptions) []string { return []string{"cat", cut} },
		NewDecoder: func() LineDecoder { return streamparse.NewQoderDecoder() }}
	s, err := sj.Fallback()(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := s.Prompt(context.Background(), adapters.TextPrompt("x"))
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, ch, nil)
	if texts(evs) == "" {
		t.Fatalf("the held assistant message was lost: %+v", evs)
	}
}
