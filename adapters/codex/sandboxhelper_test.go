package codex

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// npmLayout writes a codex npm install under root: the node launcher
// behind node_modules/.bin/codex and the native binary at native (relative
// to node_modules/@openai/codex); it returns the .bin path.
func npmLayout(t *testing.T, root, native string) (bin, nativePath string) {
	t.Helper()
	pkg := filepath.Join(root, "node_modules", "@openai", "codex")
	write := func(p, data string, mode os.FileMode) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(pkg, "bin", "codex.js"), "#!/usr/bin/env node\n", 0o755)
	nativePath = filepath.Join(pkg, native)
	write(nativePath, "\x7fELF fake", 0o755)
	bin = filepath.Join(root, "node_modules", ".bin", "codex")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@openai/codex/bin/codex.js", bin); err != nil {
		t.Fatal(err)
	}
	return bin, nativePath
}

func TestSandboxHelperDir_LinksCodexLinuxSandboxToTheNativeBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks and the Linux sandbox helper are not used on Windows")
	}
	for _, tc := range []struct{ name, native, goarch string }{
		{"hoisted platform package", "../codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", "amd64"},
		{"nested platform package", "node_modules/@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex", "arm64"},
		{"vendor in the package", "vendor/x86_64-unknown-linux-musl/bin/codex", "amd64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			bin, native := npmLayout(t, root, tc.native)
			dir, err := sandboxHelperDir(bin, filepath.Join(root, "cache"), tc.goarch)
			if err != nil {
				t.Fatal(err)
			}
			target, err := os.Readlink(filepath.Join(dir, linuxSandboxHelper))
			want, _ := filepath.EvalSymlinks(native)
			if err != nil || target != want {
				t.Fatalf("%s -> %q (%v); want %q", linuxSandboxHelper, target, err, want)
			}
			again, err := sandboxHelperDir(bin, filepath.Join(root, "cache"), tc.goarch)
			if err != nil || again != dir {
				t.Errorf("second call: %q, %v; want %q", again, err, dir)
			}
		})
	}
}

func TestSandboxHelperDir_NoNativeBinaryIsAnError(t *testing.T) {
	root := t.TempDir()
	script := filepath.Join(root, "codex")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := sandboxHelperDir(script, filepath.Join(root, "cache"), "amd64"); err == nil {
		t.Fatal("want an error for a launcher without its native binary")
	}
}

func TestPrependPath_HelperDirComesFirst(t *testing.T) {
	sep := string(os.PathListSeparator)
	for _, tc := range []struct {
		name string
		env  []string
		dir  string
		want string
	}{
		{"existing PATH", []string{"A=1", "PATH=/usr/bin"}, "/h", "PATH=/h" + sep + "/usr/bin"},
		{"last PATH wins", []string{"PATH=/old", "PATH=/usr/bin"}, "/h", "PATH=/h" + sep + "/usr/bin"},
		{"no PATH", []string{"A=1"}, "/h", "PATH=/h"},
		{"no helper", []string{"PATH=/usr/bin"}, "", "PATH=/usr/bin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := prependPath(slices.Clone(tc.env), tc.dir)
			if got[len(got)-1] != tc.want {
				t.Errorf("env = %v; want last %q", got, tc.want)
			}
		})
	}
}
