package codex

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fileuri"
)

func TestUserInput_FileURIsBecomeLocalPaths(t *testing.T) {
	shot, _ := filepath.Abs(filepath.FromSlash("/shots/a b#1.png")) // C:\shots\... on Windows
	items := userInput([]adapters.Content{
		{Type: adapters.ContentImage, URI: fileuri.FromPath(runtime.GOOS, shot)},
		{Type: adapters.ContentImage, URI: "https://example.com/a.png"},
	})
	if len(items) != 2 || items[0]["type"] != "localImage" || items[0]["path"] != shot {
		t.Fatalf("items = %v, want a localImage at %s", items, shot)
	}
	if items[1]["type"] != "image" || items[1]["url"] != "https://example.com/a.png" {
		t.Fatalf("http image = %v", items[1])
	}
}

// codex splits --image on commas: an image whose path has one is passed
// under a name without, showing the same bytes on every OS.
func TestLocalImage_CommaPathPassedUnderAnotherName(t *testing.T) {
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot, final.png")
	if err := os.WriteFile(shot, []byte("PNG"), 0o644); err != nil {
		t.Fatal(err)
	}
	tempFile := func(name string) (string, error) { return filepath.Join(dir, name), nil }
	got, err := localImage(fileuri.FromPath(runtime.GOOS, shot), 0, tempFile)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(got); filepath.Base(got) == filepath.Base(shot) || err != nil || string(data) != "PNG" {
		t.Fatalf("passed %s (%q, %v), want another name with the image's bytes", got, data, err)
	}
}
