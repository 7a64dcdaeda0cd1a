package fileuri

import (
	"errors"
	"testing"
)

func TestFromPath_ParsesBackToThePath(t *testing.T) {
	tests := []struct{ goos, path, uri string }{
		{"windows", `C:\Users\me\shot one.png`, "file:///C:/Users/me/shot%20one.png"},
		{"windows", `\\server\share\a#b.png`, "file://server/share/a%23b.png"},
		{"linux", "/home/me/shot one.png", "file:///home/me/shot%20one.png"},
		{"darwin", "/tmp/100%?.png", "file:///tmp/100%25%3F.png"},
	}
	for _, tt := range tests {
		uri := FromPath(tt.goos, tt.path)
		if uri != tt.uri {
			t.Errorf("FromPath(%s, %q) = %q, want %q", tt.goos, tt.path, uri, tt.uri)
		}
		if p, err := ToPath(tt.goos, uri); p != tt.path || err != nil {
			t.Errorf("ToPath(%s, %q) = %q, %v; want %q", tt.goos, uri, p, err, tt.path)
		}
	}
}

func TestToPath_SpellingsEditorsUse(t *testing.T) {
	tests := []struct {
		goos, uri, want string
		err             error
	}{
		{"windows", "file:///c:/Users/me/a.png", `c:\Users\me\a.png`, nil},
		{"windows", "file:///C%3A/Users/me/a.png", `C:\Users\me\a.png`, nil},
		{"windows", "FILE://localhost/C:/a.png", `C:\a.png`, nil},
		{"windows", "file://C:/a.png", `C:\a.png`, nil},
		{"windows", `file://C:\Users\me\a b.png`, `C:\Users\me\a b.png`, nil},
		{"windows", "file:///home/me/a.png", "", ErrNotFile},
		{"windows", "https://example.com/a.png", "", ErrNotFile},
		{"linux", "file:///home/me/a%20b.png", "/home/me/a b.png", nil},
		{"linux", "file://localhost/etc/x", "/etc/x", nil},
		{"linux", "file://server/share/x", "", ErrNotFile},
		{"linux", "file://", "", ErrNotFile},
	}
	for _, tt := range tests {
		got, err := ToPath(tt.goos, tt.uri)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ToPath(%s, %q) = %q, %v; want %q, %v", tt.goos, tt.uri, got, err, tt.want, tt.err)
		}
	}
}
