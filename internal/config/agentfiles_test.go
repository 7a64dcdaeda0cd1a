package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The notice of files left out tells the user what works: 'hub trust' for
// a file it can record, and for a link to a folder (which it never
// records) that it cannot be trusted, not to run 'hub trust' in vain.
func TestLeftOut_SaysWhatTheUserCanDo(t *testing.T) {
	dir := t.TempDir()
	file, link := filepath.Join(dir, "settings.json"), filepath.Join(dir, "skills")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Skip(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skip("no symlinks here")
	}
	tests := []struct {
		name      string
		files     []string
		trust     bool // suggests 'hub trust'
		cannotFix bool // says the link cannot be trusted
	}{
		{"a file", []string{file}, true, false},
		{"a link to a folder", []string{link}, false, true},
		{"both", []string{file, link}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LeftOut("claude", tt.files, "", "run hooks", dir)
			if strings.Contains(got, "run 'hub trust'") != tt.trust || strings.Contains(got, link+" cannot be trusted") != tt.cannotFix {
				t.Errorf("LeftOut = %q, want 'hub trust' %v, says the link cannot be trusted %v", got, tt.trust, tt.cannotFix)
			}
		})
	}
}
