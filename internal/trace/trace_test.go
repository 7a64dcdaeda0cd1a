package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rs/zerolog"
)

func TestMark_EachHopOnceWhenOnNothingWhenOff(t *testing.T) {
	tests := []struct {
		name string
		on   bool
		want []string
	}{
		{"on", true, []string{Received, Written, FirstByte}},
		{"off", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := zerolog.New(&buf).Level(zerolog.WarnLevel) // tracing logs whatever the level
			if tt.on {
				Enable(&log)
				t.Cleanup(func() { Enable(nil) })
			}
			ctx := Begin(context.Background(), "turn", "s1")
			if !tt.on && ctx != context.Background() {
				t.Fatal("Begin made a new context while tracing is off")
			}
			for _, hop := range []string{Received, Written, Received, FirstByte, Written} {
				Mark(ctx, hop)
			}
			var got []string
			for line := range bytes.Lines(buf.Bytes()) {
				var r struct{ Hop, Span, Session string }
				if err := json.Unmarshal(line, &r); err != nil || r.Span != "turn" || r.Session != "s1" {
					t.Fatalf("trace line %q: %v", line, err)
				}
				got = append(got, r.Hop)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("hops = %q, want %q", got, tt.want)
			}
		})
	}
}
