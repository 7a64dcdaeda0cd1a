//go:build !windows

package delegation

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// openSocket opens the bridge on a unix socket in a new directory only this
// user may enter (MkdirTemp makes it 0700, less the umask): no other user
// reaches it at all.
func openSocket() (ln net.Listener, dir string, err error) {
	dir, err = os.MkdirTemp("", "hub-d-")
	if err != nil {
		return nil, "", fmt.Errorf("delegation socket dir: %w", err)
	}
	ln, err = net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", fmt.Errorf("delegation socket: %w", err)
	}
	return ln, dir, nil
}

func dialSocket(addr string) (net.Conn, error) { return net.DialTimeout("unix", addr, 5*time.Second) }
