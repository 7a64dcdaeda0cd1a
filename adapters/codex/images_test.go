package codex

import (
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
