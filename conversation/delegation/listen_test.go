package delegation

import (
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The bridge is reachable from this machine only: on Unix a socket in a
// directory only this user may enter, on Windows TCP on loopback.
func TestBridge_ListensOnlyLocally(t *testing.T) {
	b := listen(t)
	defer b.Close()
	addr := b.Env("t")[EnvSocket]
	if runtime.GOOS == "windows" {
		if ap, err := netip.ParseAddrPort(addr); err != nil || !ap.Addr().IsLoopback() {
			t.Fatalf("bridge address %q, want loopback (%v)", addr, err)
		}
		return
	}
	fi, err := os.Stat(filepath.Dir(addr))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory of %q: %v %v, want 0700", addr, fi.Mode(), err)
	}
}
