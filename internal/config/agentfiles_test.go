package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An AGENTS.md linked to a file of its project is read, but a folder on
// the way swapped for a link out of the project after the check is not
// followed: the check and the read are one open. A swapper flips the
// folder while the reader reads; no read may return the secret.
func TestReadContainedProjectFile_SwappedFolderNotFollowed(t *testing.T) {
	repo, out := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	must(os.Mkdir(filepath.Join(repo, "docs"), 0o755))
	must(os.WriteFile(filepath.Join(repo, "docs", "a.md"), []byte("instructions"), 0o644))
	must(os.WriteFile(filepath.Join(out, "a.md"), []byte("SECRET"), 0o600))
	agents := filepath.Join(repo, "AGENTS.md")
	if err := os.Symlink(filepath.Join("docs", "a.md"), agents); err != nil {
		t.Skip(err)
	}
	if fi, err := os.Lstat(agents); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skip("no symlinks here")
	}
	must(os.Symlink(out, filepath.Join(repo, "link")))
	if b, err := ReadContainedProjectFile(agents); err != nil || string(b) != "instructions" {
		t.Fatalf("read = %q, %v; want the linked file of the project", b, err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { // docs <-> link, each rename atomic
		defer close(done)
		docs, held, link := filepath.Join(repo, "docs"), filepath.Join(repo, "held"), filepath.Join(repo, "link")
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Rename(docs, held)
			_ = os.Rename(link, docs)
			_ = os.Rename(docs, link)
			_ = os.Rename(held, docs)
		}
	}()
	defer func() { close(stop); <-done }()
	for range 20000 {
		if b, err := ReadContainedProjectFile(agents); err == nil && strings.Contains(string(b), "SECRET") {
			t.Fatal("read the file a swapped-in link pointed to, outside the project")
		}
	}
}

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
