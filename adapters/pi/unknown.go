package pi

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// versionTimeout bounds `pi --version`, asked only once a record hub does
// not know shows up (pi's RPC channel does not report its version).
const versionTimeout = 5 * time.Second

// unknownRecords warns the first time the adapter meets each pi record type
// hub does not understand, naming the pi version so a user can tell an
// untested upgrade from a hub bug; repeats stay quiet.
type unknownRecords struct {
	log  zerolog.Logger
	bin  string
	env  map[string]string
	once sync.Once
	ver  string

	mu   sync.Mutex
	seen map[string]bool
}

func newUnknownRecords(log zerolog.Logger, bin string, env map[string]string) *unknownRecords {
	return &unknownRecords{log: log, bin: bin, env: env, seen: map[string]bool{}}
}

// note logs rec once; the version lookup runs off the caller's goroutine so
// the stream reader never waits for it.
func (u *unknownRecords) note(rec string) {
	u.mu.Lock()
	first := !u.seen[rec]
	u.seen[rec] = true
	u.mu.Unlock()
	if !first {
		return
	}
	go func() {
		v := u.version()
		u.log.Warn().Str("agent", Name).Str("record", rec).Str("pi_version", v).Str("tested", TestedVersions).
			Msgf("pi sent %s, which hub does not understand (pi %s, tested with %s); passing it on raw", rec, v, TestedVersions)
	}()
}

func (u *unknownRecords) version() string {
	u.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, u.bin, "--version")
		cmd.Env = os.Environ()
		for k, v := range u.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.Output()
		u.ver = strings.TrimSpace(string(out))
		if err != nil || u.ver == "" {
			u.ver = "unknown"
		}
		if i := strings.IndexByte(u.ver, '\n'); i >= 0 {
			u.ver = u.ver[:i]
		}
	})
	return u.ver
}
