package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSecrets_ExistingStoresButNotTheWorkspace(t *testing.T) {
	home := t.TempDir()
	elsewhere := t.TempDir()
	for _, d := range []string{".ssh", ".config/gh", "work"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine x password y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// ~/.aws is a link to elsewhere, seen through the realPath Secrets is
	// given (Wine cannot make links: its CreateSymbolicLinkW is a stub).
	realPath := func(p string) (string, error) {
		if p == filepath.Join(home, ".aws") {
			p = elsewhere
		}
		return filepath.EvalSymlinks(p)
	}
	real := func(p string) string { r, _ := realPath(p); return r }
	for _, tc := range []struct {
		name, root string
		want       []Secret
	}{
		{"a workspace in home", filepath.Join(home, "work"), []Secret{
			{Path: real(filepath.Join(home, ".ssh")), Dir: true}, {Path: real(elsewhere), Dir: true},
			{Path: real(filepath.Join(home, ".netrc"))}, {Path: real(filepath.Join(home, ".config/gh")), Dir: true}}},
		{"a workspace inside a store keeps it", filepath.Join(home, ".ssh"), []Secret{
			{Path: real(elsewhere), Dir: true}, {Path: real(filepath.Join(home, ".netrc"))}, {Path: real(filepath.Join(home, ".config/gh")), Dir: true}}},
		{"no home", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := home
			if tc.root == "" {
				h = ""
			}
			got := Secrets(h, real(tc.root), os.Stat, realPath)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Secrets = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
