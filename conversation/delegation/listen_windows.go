//go:build windows

package delegation

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// openSocket opens the bridge on TCP, on 127.0.0.1 only. Windows has AF_UNIX
// only from Windows 10 1803 with afunix.sys present, and Wine not at all
// (socket() fails with WSAEAFNOSUPPORT). The trade-off: any local process
// may connect where a unix socket in a 0700 directory admits only this
// user, but a call does nothing without the session's 192-bit token,
// checked before the call is looked at.
func openSocket() (net.Listener, string, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("delegation socket: %w", err)
	}
	return ln, "", nil
}

// relisten is never called: a port has no file a cleaner could remove.
func relisten(string, string) (net.Listener, error) { return nil, errors.ErrUnsupported }

// dialSocket connects to a bridge on loopback only: the token is never sent to
// another host, whatever the environment names.
func dialSocket(addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		return nil, fmt.Errorf("delegation socket %q is not a loopback address", addr)
	}
	return net.DialTimeout("tcp", addr, 5*time.Second)
}
