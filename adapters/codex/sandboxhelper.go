package codex

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc"
)

// On Linux codex prefers a bwrap on PATH; one older than 0.9 has no --argv0,
// so codex has it exec `codex-linux-sandbox` by name, a symlink to codex it
// makes under CODEX_HOME/tmp, but not when CODEX_HOME is under the system
// temp dir: then every sandboxed command fails ("bwrap: execvp
// codex-linux-sandbox: No such file or directory"). hub puts such a symlink
// in a directory of its cache in front of codex's PATH.

const linuxSandboxHelper = "codex-linux-sandbox"

// helperDirs caches, per codex command, the directory holding the helper
// ("" when codex's native binary was not found).
var helperDirs sync.Map

// env is codex's environment, on Linux with the helper's directory in
// front of PATH (unless codex's binary is not found).
func (a *Adapter) env(opts adapters.SessionOptions) []string {
	env := adapters.Environ(nil, a.cfg.Env, opts.Env)
	if runtime.GOOS != "linux" {
		return env
	}
	cmd := a.cfg.ArgvOr("codex")[0]
	dir, ok := helperDirs.Load(cmd)
	if !ok {
		d, err := sandboxHelperDir(cmd, filepath.Join(config.CacheDir(), "codex-sandbox-helper"), runtime.GOARCH)
		if err != nil {
			a.log.Debug().Err(err).Msg("codex's sandbox helper not provided; codex uses its own")
		}
		dir, _ = helperDirs.LoadOrStore(cmd, d)
	}
	return prependPath(env, dir.(string))
}

// sandboxHelperDir makes (once) root/<hash>/codex-linux-sandbox, a symlink
// to the native codex binary that command runs, and returns its directory.
func sandboxHelperDir(command, root, goarch string) (string, error) {
	native, err := nativeCodex(command, goarch)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(native))
	dir := filepath.Join(root, hex.EncodeToString(sum[:8]))
	link := filepath.Join(dir, linuxSandboxHelper)
	if target, err := os.Readlink(link); err == nil && target == native {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("codex sandbox helper dir: %w", err)
	}
	tmp := link + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Symlink(native, tmp); err != nil {
		return "", fmt.Errorf("codex sandbox helper: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		return "", fmt.Errorf("codex sandbox helper: %w", err)
	}
	return dir, nil
}

var errNoNativeCodex = errors.New("codex's native binary not found")

// nativeCodex finds the binary command runs: command itself when it is a
// native executable, else (the npm package's node launcher) the binary of
// the platform package, hoisted next to @openai/codex or nested in it.
func nativeCodex(command, goarch string) (string, error) {
	path, err := proc.LookPath(command)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNoNativeCodex, err)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNoNativeCodex, err)
	}
	if isELF(real) {
		return real, nil
	}
	arch, triple := "x64", "x86_64-unknown-linux-musl"
	if goarch == "arm64" {
		arch, triple = "arm64", "aarch64-unknown-linux-musl"
	}
	pkg := filepath.Dir(filepath.Dir(real)) // .../@openai/codex (bin/codex.js)
	rel := filepath.Join("vendor", triple, "bin", "codex")
	for _, c := range []string{
		filepath.Join(filepath.Dir(pkg), "codex-linux-"+arch, rel),
		filepath.Join(pkg, "node_modules", "@openai", "codex-linux-"+arch, rel),
		filepath.Join(pkg, rel),
	} {
		if isELF(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w next to %s", errNoNativeCodex, real)
}

func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	_, err = io.ReadFull(f, magic)
	return err == nil && string(magic) == elf.ELFMAG
}

// prependPath puts dir in front of env's PATH (the last PATH entry wins,
// as in exec.Cmd).
func prependPath(env []string, dir string) []string {
	if dir == "" {
		return env
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if path == "" {
		return append(env, "PATH="+dir)
	}
	return append(env, "PATH="+dir+string(os.PathListSeparator)+path)
}
