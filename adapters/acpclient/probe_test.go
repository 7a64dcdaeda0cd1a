package acpclient

import (
	"github.com/hubdev/hub/internal/proc/proctest"

	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/proc"
)

func TestProbe_AnswersWhatTheAgentSaysAndStopsIt(t *testing.T) {
	before := proc.Live()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	init, err := Probe(ctx, []string{os.Args[0]}, append(os.Environ(), fakeEnv+"=1"))
	if err != nil {
		t.Fatal(err)
	}
	if c := CapsFromInit(init); !c.Resume || c.Images {
		t.Fatalf("caps = %+v, want the fake's (loadSession, no images)", c)
	}
	if proc.Live() != before {
		t.Fatal("the probed agent was left running")
	}
}

func TestProbe_AnAgentThatExitsIsAnInitializeError(t *testing.T) {
	_, err := Probe(context.Background(), proctest.Command("err:broken\n", "exit:3"), os.Environ())
	if !errors.Is(err, ErrInitialize) {
		t.Fatalf("err = %v, want ErrInitialize", err)
	}
}

func TestAdapter_LearnCapsFromInitialize(t *testing.T) {
	for _, learn := range []bool{false, true} {
		a := New(Config{Name: "fake", Argv: []string{os.Args[0]}, Env: map[string]string{fakeEnv: "1"}, Logger: zerolog.Nop(),
			Caps: adapters.Capabilities{Images: true}, LearnCaps: learn})
		s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		if c := a.Capabilities(); c.Images == learn || c.Resume != learn {
			t.Errorf("learn=%v: caps = %+v (the fake answers loadSession and no images)", learn, c)
		}
	}
}

func TestAdapter_AuthRequiredNamesTheLogin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "needs-auth")
	_ = os.Mkdir(dir, 0o755)
	a := New(Config{Name: "fake", Argv: []string{os.Args[0]}, Env: map[string]string{fakeEnv: "1"}, Logger: zerolog.Nop(),
		LoginHint: "run `fake login`"})
	_, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: dir})
	if !errors.Is(err, adapters.ErrNotAuthenticated) || !strings.Contains(err.Error(), "run `fake login`") {
		t.Fatalf("err = %v", err)
	}
}
