// Package fileuri converts between local paths and file:// URIs (RFC 8089)
// as editors, agents and hub itself write them: file:///C:/a%20b on
// Windows, file:///home/a%20b elsewhere, file://server/share/x for a
// Windows share. The rules take goos as a parameter so Linux tests cover
// Windows.
package fileuri

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/hubdev/hub/internal/fspath"
)

// ErrNotFile is returned for a URI that does not name a local file.
var ErrNotFile = errors.New("not a local file URI")

// Is reports whether uri has the file scheme.
func Is(uri string) bool {
	return len(uri) >= 5 && strings.EqualFold(uri[:5], "file:")
}

// FromPath returns the file URI of the absolute path p.
func FromPath(goos, p string) string {
	if goos != "windows" {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(p, "//") { // \\server\share\x
		host, rest, _ := strings.Cut(p[2:], "/")
		return (&url.URL{Scheme: "file", Host: host, Path: "/" + rest}).String()
	}
	if fspath.IsDrive(p) {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// ToPath returns the local path a file URI names. On Windows it also takes
// file:///c:/x, file://C:/x, and the unescaped file://C:\x that older hub
// versions wrote.
func ToPath(goos, uri string) (string, error) {
	if !Is(uri) {
		return "", fmt.Errorf("%w: %s", ErrNotFile, uri)
	}
	if goos == "windows" {
		if rest := strings.TrimPrefix(uri[5:], "//"); fspath.IsDrive(rest) && strings.Contains(rest, `\`) {
			return rest, nil
		}
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("file URI %q: %w", uri, err)
	}
	host := u.Host
	if strings.EqualFold(host, "localhost") {
		host = ""
	}
	if goos != "windows" {
		if host != "" || u.Path == "" {
			return "", fmt.Errorf("%w: %s names no file on this machine", ErrNotFile, uri)
		}
		return u.Path, nil
	}
	p := u.Path
	switch {
	case fspath.IsDrive(host): // file://C:/x
		p = host + p
	case host != "":
		p = "//" + host + p
	case len(p) >= 3 && p[0] == '/' && fspath.IsDrive(p[1:]):
		p = p[1:]
	}
	if p == "" || (!fspath.IsDrive(p) && !strings.HasPrefix(p, "//")) {
		return "", fmt.Errorf("%w: %s names no file with a drive or share", ErrNotFile, uri)
	}
	return strings.ReplaceAll(p, "/", `\`), nil
}
