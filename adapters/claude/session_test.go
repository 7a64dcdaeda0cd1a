package claude

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/fixture"
)

func TestUserMessage_ImageURIs(t *testing.T) {
	dir := t.TempDir()
	png := append([]byte("\x89PNG\r\n\x1a\n"), "rest-of-png"...)
	pngPath := filepath.Join(dir, "shot one.png")
	jpgPath := filepath.Join(dir, "photo")
	huge := filepath.Join(dir, "huge.png")
	for path, data := range map[string][]byte{pngPath: png, jpgPath: []byte("JPEGBYTES")} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxImageBytes + 1); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	fileURI := func(p string) string { return fileuri.FromPath(runtime.GOOS, p) }
	tests := []struct {
		name    string
		image   adapters.Content
		want    map[string]any // the image block's source
		wantErr error
	}{
		{name: "file URI sent as base64 with detected type", image: adapters.Content{URI: fileURI(pngPath)},
			want: map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(png)}},
		{name: "file URI keeps the given type", image: adapters.Content{URI: fileURI(jpgPath), MimeType: "image/jpeg"},
			want: map[string]any{"type": "base64", "media_type": "image/jpeg", "data": base64.StdEncoding.EncodeToString([]byte("JPEGBYTES"))}},
		{name: "https URI sent as a url source", image: adapters.Content{URI: "https://example.com/a.png", MimeType: "image/png"},
			want: map[string]any{"type": "url", "url": "https://example.com/a.png"}},
		{name: "http URI sent as a url source", image: adapters.Content{URI: "http://localhost:8080/a.png"},
			want: map[string]any{"type": "url", "url": "http://localhost:8080/a.png"}},
		{name: "inline data wins over the URI", image: adapters.Content{URI: "https://example.com/a.png", MimeType: "image/gif", Data: "R0lG"},
			want: map[string]any{"type": "base64", "media_type": "image/gif", "data": "R0lG"}},
		{name: "file over 20 MB refused", image: adapters.Content{URI: fileURI(huge)}, wantErr: errImageTooLarge},
		{name: "missing file", image: adapters.Content{URI: fileURI(filepath.Join(dir, "gone.png"))}, wantErr: fs.ErrNotExist},
		{name: "other scheme unsupported", image: adapters.Content{URI: "ftp://example.com/a.png"}, wantErr: adapters.ErrUnsupported},
		{name: "no data and no URI", image: adapters.Content{}, wantErr: adapters.ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.image.Type = adapters.ContentImage
			line, err := userMessage([]adapters.Content{{Type: adapters.ContentText, Text: "look"}, tc.image}, "u")
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var msg struct {
				Message struct {
					Content []struct {
						Type   string         `json:"type"`
						Source map[string]any `json:"source"`
					} `json:"content"`
				} `json:"message"`
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				t.Fatal(err)
			}
			c := msg.Message.Content
			if len(c) != 2 || c[1].Type != "image" {
				t.Fatalf("content = %s", line)
			}
			got, _ := json.Marshal(c[1].Source)
			want, _ := json.Marshal(tc.want)
			if string(got) != string(want) {
				t.Errorf("image source = %s, want %s", got, want)
			}
		})
	}
}

func TestSession_SteeredInputEndsTheTurnOnlyWhenAnswered(t *testing.T) {
	for scenario, results := range map[string]float64{"steer-join": 1, "steer-later": 2} {
		t.Run(scenario, func(t *testing.T) {
			_, s := startFake(t, scenario, adapters.SessionOptions{})
			if err := s.Steer(context.Background(), adapters.TextPrompt("early")); !errors.Is(err, adapters.ErrNoTurn) {
				t.Fatalf("steer with no turn: %v, want ErrNoTurn", err)
			}
			ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt("go"))
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			dones, cost := 0, 0.0
			for ev := range ch {
				switch ev.Type {
				case adapters.EventUsage: // a later reading replaces an earlier one
					cost = *ev.Usage.CostUSD
				case adapters.EventText:
					text.WriteString(ev.Text)
					if ev.Text == "working;" {
						if err := s.Steer(context.Background(), adapters.TextPrompt("use -n")); err != nil {
							t.Fatalf("steer: %v", err)
						}
					}
				case adapters.EventDone:
					dones++
				}
			}
			if got := text.String(); got != "working;answering use -n;" || dones != 1 {
				t.Fatalf("turn text %q with %d done events: the answer to the steered input belongs to the turn", got, dones)
			}
			if cost != 0.01*results { // the fake adds 0.01 to its running total per result
				t.Errorf("turn cost %v, want %v: what its %v results added", cost, 0.01*results, results)
			}
		})
	}
}
