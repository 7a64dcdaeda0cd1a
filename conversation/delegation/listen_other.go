//go:build !windows

package delegation

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// openSocket opens the bridge in a new 0700 directory, so no other user
// reaches it: in XDG_RUNTIME_DIR, which tmp cleaners leave alone, else in
// TMPDIR, else /tmp when the path is too long (104 bytes on macOS, 108 on Linux).
func openSocket() (ln net.Listener, dir string, err error) {
	for _, root := range []string{os.Getenv("XDG_RUNTIME_DIR"), os.TempDir(), "/tmp"} {
		if !filepath.IsAbs(root) {
			continue
		}
		if dir, err = os.MkdirTemp(root, "hub-d-"); err != nil {
			continue
		}
		if ln, err = net.Listen("unix", filepath.Join(dir, "s")); err == nil {
			return ln, dir, nil
		}
		os.RemoveAll(dir)
	}
	return nil, "", fmt.Errorf("delegation socket: %w", err)
}

// relisten never serves from a directory that is not private: once gone,
// its name is free to any user of a shared /tmp.
func relisten(dir, addr string) (net.Listener, error) {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	_ = os.Remove(addr) // whatever is there is this user's own
	return net.Listen("unix", addr)
}

// dialSocket never sends the token to a socket someone else placed where
// the parent's cleaned-up directory was.
func dialSocket(addr string) (net.Conn, error) {
	if err := privateDir(filepath.Dir(addr)); err != nil {
		return nil, err
	}
	return net.DialTimeout("unix", addr, 5*time.Second)
}

func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is not a directory that only this user may enter", dir)
	}
	return nil
}
