package tools

import "testing"

// A command's output keeps its head and tail, each half the cap, says how
// many bytes it left out, and never starts the tail inside a character.
func TestHeadTail_KeepsHeadAndTail(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"fits", []string{"ab", "cd"}, "abcd"},
		{"exactly the cap", []string{"abcdefgh"}, "abcdefgh"},
		{"over, in pieces", []string{"ab", "cdef", "ghij", "kl"}, "abcd\n[… 4 bytes omitted …]\nijkl"},
		{"tail cut after a character", []string{"abcd", "é", "xyz"}, "abcd\n[… 2 bytes omitted …]\nxyz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeadTail(8)
			for _, w := range tt.writes {
				if n, err := h.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := h.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
