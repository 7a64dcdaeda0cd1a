package gemini

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/safefile"
)

// gemini tells its client nothing while it retries a failing model call (up to 10
// attempts, 5 s to 30 s apart), on either channel; only its debug log gets each retry as
// it happens, which retryLog follows during a turn.
const debugLogEnv = "GEMINI_DEBUG_LOG_FILE"

const retryPoll = 500 * time.Millisecond // how often a turn reads the debug log

// retryLine is gemini's retry notice: "Attempt N failed with status S. Retrying with
// backoff... ERROR", or without a status (a network error), "with 429 error", "with 5xx
// error", or ": MESSAGE. Retrying after Dms..." for a quota it may wait out.
var retryLine = regexp.MustCompile(`^\[[^\]]*\] \[WARN\] Attempt (\d+) failed(?: with status (\d+)| with (429) error[^.]*| with 5xx error|: .*)?\. Retrying (with backoff|after \d+ms)\.\.\.\s*(.*)`)

// retryNotice is the error of one retry notice line, nil for any other line.
func retryNotice(line string) *adapters.ErrorInfo {
	m := retryLine.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	status, _ := strconv.Atoi(m[2] + m[3])
	e := adapters.RetryError(Name, status, m[1], adapters.OneLine(m[5]))
	if strings.HasPrefix(m[4], "after") { // a quota gemini waits out
		e.Code = adapters.CodeRateLimit
	}
	return e
}

type retryLog struct {
	path string
	temp string // the directory hub made for it, "" when the user named the file
	off  int64
	part []byte     // the unfinished last line
	mu   sync.Mutex // held by the turn that follows the log
}

// newRetryLog names the debug log of a gemini started with env: the user's, else one in
// a new directory, added to optsEnv. Nil when neither works.
func newRetryLog(env []string, optsEnv map[string]string) (*retryLog, map[string]string) {
	if p := envMap(env)[debugLogEnv]; p != "" {
		return &retryLog{path: p}, optsEnv
	}
	dir, err := os.MkdirTemp("", "hub-gemini-")
	if err != nil {
		return nil, optsEnv
	}
	l := &retryLog{path: filepath.Join(dir, "debug.log"), temp: dir}
	return l, merge(optsEnv, map[string]string{debugLogEnv: l.path})
}

// during follows the log while a turn runs, each retry notice passed to note, from the
// log's present end. stop ends it.
func (l *retryLog) during(note func(adapters.Event)) (stop func()) {
	if !l.mu.TryLock() {
		return func() {} // another turn, refused as busy, follows it
	}
	l.part = nil
	if fi, err := os.Stat(l.path); err == nil {
		l.off = fi.Size()
	}
	done, wg := make(chan struct{}), sync.WaitGroup{}
	wg.Go(func() {
		t := time.NewTicker(retryPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, e := range l.read() {
					note(adapters.Event{Type: adapters.EventError, Error: e})
				}
			}
		}
	})
	return func() { close(done); wg.Wait(); l.mu.Unlock() }
}

// retryRead bounds what one read of the log takes; the next takes the rest.
const retryRead = 1 << 20

// read returns the retry notices of the lines written since the last read. The log may
// be the user's: a FIFO or device there is no log, not waited on.
func (l *retryLog) read() []*adapters.ErrorInfo {
	f, err := safefile.Open(l.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, _ := io.ReadAll(io.NewSectionReader(f, l.off, retryRead))
	l.off += int64(len(data))
	data = append(l.part, data...)
	end := bytes.LastIndexByte(data, '\n') + 1
	if l.part = bytes.Clone(data[end:]); len(l.part) > retryRead {
		l.part = nil // no line of gemini's is that long: none to finish
	}
	var out []*adapters.ErrorInfo
	for _, line := range strings.Split(string(data[:end]), "\n") {
		if e := retryNotice(line); e != nil {
			out = append(out, e)
		}
	}
	return out
}

func (l *retryLog) remove() {
	if l != nil && l.temp != "" {
		_ = os.RemoveAll(l.temp)
	}
}
