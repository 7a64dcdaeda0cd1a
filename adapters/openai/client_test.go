package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
)

// A refusal's body says why in error.message, in error as a string, or
// in a body of another shape, shown on one line.
func TestErrorMessage_BodyShapes(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"object", `{"error":{"message":"model not found","type":"invalid_request_error","code":null}}`, "model not found"},
		{"string", `{"error":"quota exceeded"}`, "quota exceeded"},
		{"object without message", `{"error":{"code":42}}`, `{"error":{"code":42}}`},
		{"other JSON", `["a"]`, `["a"]`},
		{"text", "Bad\n  Gateway", "Bad Gateway"},
		{"long text, cut on a character", strings.Repeat("a", 299) + "éé", strings.Repeat("a", 299) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorMessage([]byte(tt.body)); got != tt.want {
				t.Errorf("errorMessage(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

// A provider that goes quiet, before its answer or within its stream,
// ends the request as stalled (ErrIdle, not retried), naming the server.
func TestClient_StallIsIdle(t *testing.T) {
	tests := []struct {
		name  string
		start func(w http.ResponseWriter)
	}{
		{"no answer", func(http.ResponseWriter) {}},
		{"stream stops", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: " + hello + "\n\n"))
			w.(http.Flusher).Flush()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tt.start(w)
				select { // quiet until the client gives up or the test ends
				case <-r.Context().Done():
				case <-release:
				}
			}))
			defer srv.Close()
			defer close(release)
			c := &client{profile: Profile{Name: "p", BaseURL: srv.URL, Stream: true}, http: srv.Client(), clock: realClock{}, idle: 50 * time.Millisecond}
			_, err := c.complete(context.Background(), &chatRequest{Model: "m"}, func(adapters.Event) {})
			if !errors.Is(err, ErrIdle) || !strings.Contains(err.Error(), srv.URL) {
				t.Fatalf("err %v, want ErrIdle naming %s", err, srv.URL)
			}
		})
	}
}
