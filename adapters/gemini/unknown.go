package gemini

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/streamparse"
)

// versionTimeout bounds `gemini --version`, run only once a stream-json
// record hub does not know shows up (stream-json does not name the
// version; the ACP channel reports it in initialize instead).
const versionTimeout = 10 * time.Second

// invalidSource is the decoder's source for a stdout line that is not JSON
// (banners), which is no record type to warn about.
const invalidSource = "gemini:invalid"

// cliVersion asks the gemini program for its version once.
type cliVersion struct {
	argv []string
	env  map[string]string
	once sync.Once
	v    string
}

func (c *cliVersion) get() string {
	c.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
		cmd.Env = os.Environ()
		for k, v := range c.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.Output()
		v, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if err != nil || v == "" {
			v = "unknown"
		}
		c.v = v
	})
	return c.v
}

// versionArgv is argv without its ACP flags, asking for the version.
func versionArgv(argv []string) []string {
	out := []string{argv[0]}
	for _, a := range argv[1:] {
		if !acpFlag(a) {
			out = append(out, a)
		}
	}
	return append(out, "--version")
}

// unknownRecords warns the first time a stream-json session meets each
// record type hub does not understand, naming the gemini version against
// TestedVersions so a user can tell an untested upgrade from a hub bug;
// repeats stay quiet so logs do not flood.
type unknownRecords struct {
	log     zerolog.Logger
	version func() string

	mu   sync.Mutex
	seen map[string]bool
}

func newUnknownRecords(log zerolog.Logger, version func() string) *unknownRecords {
	return &unknownRecords{log: log, version: version, seen: map[string]bool{}}
}

// note logs source once; the version lookup runs off the caller's
// goroutine so the stream reader never waits for it.
func (u *unknownRecords) note(source string) {
	u.mu.Lock()
	first := !u.seen[source]
	u.seen[source] = true
	u.mu.Unlock()
	if !first {
		return
	}
	if source == invalidSource {
		u.log.Debug().Str("agent", Name).Msg("gemini printed a non-JSON line on stdout; passing it on raw")
		return
	}
	go func() {
		v := u.version()
		u.log.Warn().Str("agent", Name).Str("record", source).Str("agent_version", v).Str("tested", TestedVersions).
			Msgf("%s sent %s, which hub does not understand (%s %s, tested with %s); passing it on raw", Name, source, Name, v, TestedVersions)
	}()
}

// warnDecoder is a stream-json decoder that reports its raw events.
type warnDecoder struct {
	acpclient.LineDecoder
	raw *unknownRecords
}

func (d warnDecoder) Decode(line []byte) []adapters.Event {
	evs := d.LineDecoder.Decode(line)
	for _, ev := range evs {
		if ev.Type == adapters.EventRaw {
			d.raw.note(ev.Source)
		}
	}
	return evs
}

// streamJSONFallback opens stream-json sessions whose unknown records warn
// once per type per session.
func streamJSONFallback(sj acpclient.StreamJSON, version func() string) acpclient.Fallback {
	return func(ctx context.Context, opts adapters.SessionOptions, acpErr error) (adapters.Session, error) {
		raw := newUnknownRecords(sj.Logger, version)
		c := sj
		c.NewDecoder = func() acpclient.LineDecoder { return warnDecoder{streamparse.NewGeminiDecoder(), raw} }
		return c.Fallback()(ctx, opts, acpErr)
	}
}
