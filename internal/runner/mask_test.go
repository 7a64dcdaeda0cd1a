package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/mask"
	tscript "github.com/hubdev/hub/internal/transcript"
)

func TestRun_OutputMasksSecrets(t *testing.T) {
	const secret = "s3cr3t-from-the-env"
	const token = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	t.Setenv("HUB_TEST_API_KEY", secret)
	m := mask.New(os.Environ())
	script := func(_ context.Context, _ <-chan struct{}, out chan<- adapters.Event) {
		out <- adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Title: "echo $HUB_TEST_API_KEY", Kind: adapters.KindExecute,
			Status: adapters.StatusCompleted, Content: []adapters.ToolContent{{Type: adapters.ToolContentText, Text: secret + "\n"}}}}
		out <- text("the key is " + secret + ", the \"token\" " + token)
		out <- done(adapters.StopEndTurn)
	}
	tests := []struct {
		name   string
		format Format
		noMask bool
	}{
		{"text", FormatText, false},
		{"jsonl", FormatJSONL, false},
		{"text --no-mask", FormatText, true},
		{"jsonl --no-mask", FormatJSONL, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			audit := t.TempDir()
			_, out, errOut := runFake(t, context.Background(), &fakeAdapter{name: "fake", sessID: "s-1", script: script}, func(o *Options) {
				o.Format, o.NoMask, o.Mask, o.AuditDir = tt.format, tt.noMask, m, audit
			})
			all := out + errOut
			if shown := strings.Contains(all, secret) || strings.Contains(all, token); shown != tt.noMask {
				t.Errorf("secret shown = %v, want %v:\n%s", shown, tt.noMask, all)
			}
			if !tt.noMask && !strings.Contains(out, "[masked]") {
				t.Errorf("no mask in %s", out)
			}
			if tt.format == FormatJSONL {
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					if !json.Valid([]byte(l)) {
						t.Errorf("line is not JSON: %s", l)
					}
				}
			}
			files, _ := filepath.Glob(filepath.Join(audit, "*"))
			for _, f := range files {
				recs, err := tscript.Read(audit, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
				b, _ := json.Marshal(recs)
				if err != nil || strings.Contains(string(b), token) {
					t.Errorf("transcript %s: %v, token kept: %v", f, err, strings.Contains(string(b), token))
				}
			}
			if len(files) == 0 {
				t.Error("no transcript written")
			}
		})
	}
}
