package codex

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/safefile"
)

// maxImageBytes bounds an image hub copies for codex; the OpenAI API
// refuses requests larger than 50 MB anyway.
const maxImageBytes = 50 << 20

// imageExt names temp image files so codex can tell the format.
var imageExt = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

// imageFiles turns the prompt's images into paths for `codex exec --image`:
// file:// images are passed as they are, inline data is written to a temp
// directory that cleanup removes. cleanup is never nil.
func imageFiles(prompt []adapters.Content) (paths []string, cleanup func(), err error) {
	dir := ""
	cleanup = func() { _ = os.RemoveAll(dir) } // "" is nothing to remove
	tempFile := func(name string) (string, error) {
		if dir == "" {
			d, err := os.MkdirTemp("", "hub-codex-images-")
			if err != nil {
				return "", fmt.Errorf("codex exec: temp directory for images: %w", err)
			}
			dir = d
		}
		return filepath.Join(dir, name), nil
	}
	for i, c := range prompt {
		if c.Type != adapters.ContentImage {
			continue
		}
		var path string
		switch {
		case c.Data != "":
			path, err = writeImage(c, i, tempFile)
		case fileuri.Is(c.URI):
			path, err = localImage(c.URI, i, tempFile)
		default:
			err = fmt.Errorf("codex exec: image %q: only file:// or inline images can be attached without app-server (%w)", c.URI, adapters.ErrUnsupported)
		}
		if err != nil {
			cleanup()
			return nil, func() {}, err
		}
		paths = append(paths, path)
	}
	return paths, cleanup, nil
}

func writeImage(c adapters.Content, i int, tempFile func(string) (string, error)) (string, error) {
	b, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil {
		return "", fmt.Errorf("codex exec: image %d is not valid base64: %w", i, err)
	}
	return saveImage(b, "image-"+strconv.Itoa(i)+cmp.Or(imageExt[c.MimeType], ".png"), tempFile)
}

func saveImage(data []byte, name string, tempFile func(string) (string, error)) (string, error) {
	path, err := tempFile(name)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("codex exec: write image %s: %w", name, err)
	}
	return path, nil
}

// localImage resolves a file:// URI. codex splits --image values on commas,
// so a path with one is passed as a copy under another name.
func localImage(uri string, i int, tempFile func(string) (string, error)) (string, error) {
	path, err := fileuri.ToPath(runtime.GOOS, uri)
	if err != nil {
		return "", fmt.Errorf("codex exec: image: %w", err)
	}
	if !strings.Contains(path, ",") {
		return path, nil
	}
	data, err := safefile.Read(path, maxImageBytes) // a FIFO is refused, not waited on
	if err != nil {
		return "", fmt.Errorf("codex exec: image %s: %w", path, err)
	}
	return saveImage(data, "image-"+strconv.Itoa(i)+filepath.Ext(strings.ReplaceAll(path, ",", "_")), tempFile)
}
