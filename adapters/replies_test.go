package adapters

import (
	"context"
	"errors"
	"testing"
)

// A request gets the agent's reply, the agent's end (Close), or its
// caller's end; once the agent is gone nothing more is sent.
func TestReplies_Call(t *testing.T) {
	gone := errors.New("agent gone")
	tests := []struct {
		name string
		// during runs once the request was sent, before the wait
		during  func(r *Replies[string], id string, cancel func())
		closed  bool // Close ran before the request
		want    string
		wantErr error
		sent    bool
	}{
		{"answered", func(r *Replies[string], id string, _ func()) { r.Answer(id, "ok", nil) }, false, "ok", nil, true},
		{"agent's error", func(r *Replies[string], id string, _ func()) { r.Answer(id, "", gone) }, false, "", gone, true},
		{"agent gone while waiting", func(r *Replies[string], _ string, _ func()) { r.Close(gone) }, false, "", gone, true},
		{"agent gone before", nil, true, "", ErrClosed, false},
		{"caller gave up", func(_ *Replies[string], _ string, cancel func()) { cancel() }, false, "", context.Canceled, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Replies[string]
			if tt.closed {
				r.Close(gone)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			id, sent := r.NewID("req-"), false
			got, err := r.Call(ctx, id, func() error {
				sent = true
				go tt.during(&r, id, cancel)
				return nil
			})
			if got != tt.want || !errors.Is(err, tt.wantErr) || sent != tt.sent {
				t.Errorf("Call = %q, %v (sent %v), want %q, %v (sent %v)", got, err, sent, tt.want, tt.wantErr, tt.sent)
			}
			if r.Answer(id, "late", nil) {
				t.Error("the request still waits after Call returned")
			}
		})
	}
}
