package sandbox

import (
	"io/fs"
	"path/filepath"
	"runtime"

	"github.com/hubdev/hub/internal/fspath"
)

// Secret is a credential store a sandboxed command cannot read: a
// directory it sees empty, or a file it reads as empty.
type Secret struct {
	Path string
	Dir  bool
}

// CredentialStores, under the home directory, are what a prompt-injected
// command would send away; the rest stays readable so the user's tools work.
var CredentialStores = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker/config.json", ".netrc", ".git-credentials",
	".config/gcloud", ".config/gh", ".npmrc", ".pypirc", ".cargo/credentials.toml",
	".password-store", ".local/share/keyrings",
}

// Secrets are home's credential stores that exist, as real paths (a
// symlinked ~/.ssh is hidden where it points), but any that holds root.
func Secrets(home, root string, stat func(string) (fs.FileInfo, error), realPath func(string) (string, error)) []Secret {
	if home == "" {
		return nil
	}
	var out []Secret
	for _, name := range CredentialStores {
		p, err := realPath(filepath.Join(home, filepath.FromSlash(name)))
		if err != nil {
			continue // absent
		}
		fi, err := stat(p)
		if err != nil || fspath.Within(runtime.GOOS, p, root) {
			continue
		}
		out = append(out, Secret{Path: p, Dir: fi.IsDir()})
	}
	return out
}
