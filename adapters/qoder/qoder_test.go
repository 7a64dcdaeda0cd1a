package qoder

import (
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

func TestFallbackArgv_Flags(t *testing.T) {
	got := strings.Join(FallbackArgv(DefaultArgv, "hi", "s1", adapters.SessionOptions{Cwd: "/w", Mode: "yolo"}), " ")
	want := "qodercli --output-format stream-json --include-partial-messages -w /w --permission-mode bypass_permissions --resume s1 -p hi"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
