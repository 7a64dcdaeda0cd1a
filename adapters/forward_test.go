package adapters

import (
	"context"
	"errors"
	"testing"
)

// bare is a session with none of the optional features.
type bare struct{}

func (bare) ID() string { return "bare" }
func (bare) Prompt(context.Context, []Content, func(Event)) (StopReason, error) {
	return StopEndTurn, nil
}
func (bare) Close() error { return nil }

// full has every optional feature Forward passes on, and records the calls.
type full struct {
	bare
	calls []string
}

func (f *full) SetModel(_ context.Context, m string) error {
	f.calls = append(f.calls, "model "+m)
	return nil
}
func (f *full) SetMode(_ context.Context, m string) error {
	f.calls = append(f.calls, "mode "+m)
	return nil
}
func (f *full) SetOption(_ context.Context, id, v string) error {
	f.calls = append(f.calls, id+" "+v)
	return nil
}
func (f *full) Surface(context.Context) (Surface, error) {
	return Surface{Commands: []Command{{Name: "init"}}}, nil
}
func (f *full) Exit() *ErrorInfo { return &ErrorInfo{Code: CodeCrash, Message: "exit status 2"} }

func TestForward_PassesOnWhatTheSessionHas(t *testing.T) {
	ctx := context.Background()
	in := &full{}
	f := Forward{in}
	for _, err := range []error{f.SetModel(ctx, "m"), f.SetMode(ctx, "plan"), f.SetOption(ctx, "effort", "high")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := in.calls; len(got) != 3 || got[0] != "model m" || got[1] != "mode plan" || got[2] != "effort high" {
		t.Errorf("calls %q, want model, mode and option passed on", got)
	}
	if s, err := f.Surface(ctx); err != nil || len(s.Commands) != 1 {
		t.Errorf("surface %+v, %v; want the session's", s, err)
	}
	if x := f.Exit(); x == nil || x.Code != CodeCrash {
		t.Errorf("exit %+v, want the session's crash", x)
	}
}

func TestForward_AnswersAsWithoutTheFeature(t *testing.T) {
	ctx := context.Background()
	f := Forward{bare{}}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"model", f.SetModel(ctx, "m"), ErrNeedsRestart},
		{"mode", f.SetMode(ctx, "plan"), ErrNeedsRestart},
		{"option", f.SetOption(ctx, "effort", "high"), ErrNeedsRestart},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	if _, err := f.Surface(ctx); !errors.Is(err, ErrUnsupported) {
		t.Errorf("surface: %v, want ErrUnsupported", err)
	}
	if x := f.Exit(); x != nil {
		t.Errorf("exit %+v, want nil", x)
	}
	if _, ok := any(f).(Steerer); ok {
		t.Error("Forward steers: a front end would record input for a session that cannot take it")
	}
}
