package acpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/rs/zerolog"
)

// lineStream is a jsonrpc2.ObjectStream of newline-delimited JSON objects.
// Lines can be megabytes; non-JSON lines (agent banners on stdout) are
// skipped instead of killing the connection.
type lineStream struct {
	r   *bufio.Reader
	w   io.WriteCloser
	rc  io.Closer
	wmu sync.Mutex
	log zerolog.Logger
}

func newLineStream(r io.ReadCloser, w io.WriteCloser, log zerolog.Logger) *lineStream {
	return &lineStream{r: bufio.NewReaderSize(r, 1<<20), w: w, rc: r, log: log}
}

func (s *lineStream) ReadObject(v any) error {
	for {
		line, err := s.r.ReadBytes('\n')
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] == '{' {
			if uerr := json.Unmarshal(line, v); uerr == nil {
				s.log.Trace().RawJSON("msg", line).Msg("acp <-")
				return nil
			} else {
				s.log.Warn().Err(uerr).Int("bytes", len(line)).Msg("acp: skipping malformed message from agent")
			}
		} else if len(line) > 0 {
			s.log.Debug().Str("line", string(line)).Msg("acp: skipping non-JSON stdout line")
		}
		if err != nil {
			return err
		}
	}
}

func (s *lineStream) WriteObject(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.log.Trace().RawJSON("msg", b).Msg("acp ->")
	b = append(b, '\n')
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.w.Write(b)
	return err
}

func (s *lineStream) Close() error {
	err := s.w.Close()
	_ = s.rc.Close()
	return err
}
