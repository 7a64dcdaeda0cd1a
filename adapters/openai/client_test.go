package openai

import "testing"

// A refusal's body says why in error.message, in error as a string, or
// in a body of another shape, shown on one line.
func TestErrorMessage_BodyShapes(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"object", `{"error":{"message":"model not found","type":"invalid_request_error","code":null}}`, "model not found"},
		{"string", `{"error":"quota exceeded"}`, "quota exceeded"},
		{"object without message", `{"error":{"code":42}}`, `{"error":{"code":42}}`},
		{"other JSON", `["a"]`, `["a"]`},
		{"text", "Bad\n  Gateway", "Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorMessage([]byte(tt.body)); got != tt.want {
				t.Errorf("errorMessage(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}
