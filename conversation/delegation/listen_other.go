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

// openSocket opens the bridge on a unix socket in a new directory only this
// user may enter (MkdirTemp makes it 0700, less the umask): no other user
// reaches it at all. The directory goes in XDG_RUNTIME_DIR, which tmp
// cleaners leave alone, when set; else in TMPDIR, or /tmp where either makes
// the path too long for a socket (104 bytes on macOS, 108 on Linux).
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

// relisten listens at addr again, in dir, made again if it is gone. It
// never serves from a directory that is not private: once gone, its name
// is free to any user of a shared /tmp.
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

// dialSocket connects to a bridge only through a directory of this user's
// that no other may enter: the token is never sent to a socket someone
// else placed at a name the parent's cleaned-up directory left free.
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
