package detect

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheckRange(t *testing.T) {
	cases := []struct{ v, r, want string }{
		{"2.1.330", ">=2.1.0 <3.0.0", "ok"},
		{"2.0.9", ">=2.1.0 <3.0.0", "too_old"},
		{"3.0.0", ">=2.1.0 <3.0.0", "newer_than_tested"},
		{"2.5.0", "2.1.0 - 2.5.0", "ok"},
		{"0.73.1", "0.73.1", "ok"},
		{"0.72.0", "0.73.1", "too_old"},
		{"", ">=1.0.0", "unknown"},
		{"1.0.0-beta.1", ">=1.0.0", "ok"},
	}
	for _, c := range cases {
		if got := checkRange(c.v, c.r); got != c.want {
			t.Errorf("checkRange(%q, %q) = %q, want %q", c.v, c.r, got, c.want)
		}
	}
}

// Another package's package.json does not give a version.
func TestNPMVersion_OtherPackageDoesNotCount(t *testing.T) {
	other := filepath.Join(t.TempDir(), "lib", "node_modules", "not-gemini")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(other, "gemini2")
	if err := os.WriteFile(bin, nil, 0o755); err != nil { // never run
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "package.json"), []byte(`{"name":"not-gemini","version":"1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := npmVersion(bin, "@google/gemini-cli"); v != "" {
		t.Fatalf("version %q from another package", v)
	}
}
