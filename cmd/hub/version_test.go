package main

import "testing"

func TestBuildInfo_String(t *testing.T) {
	tests := []struct {
		name string
		b    buildInfo
		want string
	}{
		{"release", buildInfo{"1.2.0", "0123456789abcdef0123", "2026-11-25T10:00:00Z", "darwin/arm64"},
			"hub 1.2.0 (commit 0123456789ab, built 2026-11-25T10:00:00Z, darwin/arm64)"},
		{"unstamped", buildInfo{Version: "dev", Platform: "windows/amd64"},
			"hub dev (commit unknown, built unknown, windows/amd64)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.String(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
