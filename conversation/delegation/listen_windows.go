//go:build windows

package delegation

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// openSocket uses TCP on loopback: AF_UNIX needs Windows 10 1803 with
// afunix.sys, and Wine has none. Any local process may connect, but a call
// does nothing without the session's 192-bit token.
func openSocket() (net.Listener, string, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("delegation socket: %w", err)
	}
	return ln, "", nil
}

// relisten is never called: a port has no file a cleaner could remove.
func relisten(string, string) (net.Listener, error) { return nil, errors.ErrUnsupported }

// dialSocket never sends the token to another host, whatever the
// environment names.
func dialSocket(addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		return nil, fmt.Errorf("delegation socket %q is not a loopback address", addr)
	}
	return net.DialTimeout("tcp", addr, 5*time.Second)
}
