package acpclient

import (
	"slices"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// qodercli streams a model error as an "[Error] …" chunk and then fails
// session/prompt with the same message (code 500): the user sees it once.
func TestSession_ErrorTextChunk(t *testing.T) {
	tests := []struct {
		cmd   string
		text  string
		codes []string
	}{
		{"modelerror", "", []string{"provider"}},
		{"errortext", "[Error] is what the log says", nil},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			s := startFake(t, adapters.SessionOptions{})
			evs := prompt(t, s, tt.cmd, nil)
			if got := texts(evs); got != tt.text {
				t.Errorf("text %q, want %q", got, tt.text)
			}
			var codes []string
			for _, ev := range evs {
				if ev.Type == adapters.EventError {
					codes = append(codes, string(ev.Error.Code))
				}
			}
			if !slices.Equal(codes, tt.codes) {
				t.Errorf("error codes %v, want %v", codes, tt.codes)
			}
			if got := texts(prompt(t, s, "again", nil)); got != "echo:again" {
				t.Errorf("next turn text %q", got)
			}
		})
	}
}
