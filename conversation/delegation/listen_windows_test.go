package delegation

import (
	"errors"
	"testing"

	"github.com/rs/zerolog"
)

// A `hub mcp` child sends its token to a loopback address only, whatever
// its environment names.
func TestDial_RefusesAddressesOffThisMachine(t *testing.T) {
	for _, addr := range []string{"10.0.0.1:4000", "example.com:4000", "0.0.0.0:4000", `C:\hub\s`} {
		env := map[string]string{EnvSocket: addr, EnvToken: "secret"}
		if _, child, err := Dial(func(k string) string { return env[k] }, zerolog.Nop()); !child || !errors.Is(err, ErrNoParent) {
			t.Errorf("%s: child=%v err=%v, want ErrNoParent", addr, child, err)
		}
	}
}
