package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
)

// paced is an adapter whose turn emits n text events "ev-<i>" at a fixed
// rate, stamping each with clock() just before the channel send.
type paced struct {
	n        int
	interval time.Duration
	clock    func() time.Time
	emitted  []time.Time
}

func (p *paced) Name() string                        { return "paced" }
func (p *paced) Capabilities() adapters.Capabilities { return adapters.Capabilities{} }
func (p *paced) Start(context.Context, adapters.SessionOptions) (adapters.Session, error) {
	return pacedSession{p}, nil
}

type pacedSession struct{ p *paced }

func (pacedSession) ID() string   { return "paced" }
func (pacedSession) Close() error { return nil }

func (s pacedSession) Prompt(ctx context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	p := s.p
	ch := make(chan adapters.Event, 64)
	p.emitted = make([]time.Time, p.n)
	go func() {
		defer close(ch)
		start := p.clock()
		for i := range p.n {
			waitUntil(p.clock, start.Add(time.Duration(i)*p.interval))
			p.emitted[i] = p.clock()
			ch <- adapters.Event{Type: adapters.EventText, Text: "ev-" + strconv.Itoa(i)}
		}
		ch <- adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	}()
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{})
}

// waitUntil sleeps until t; an emitter that falls behind catches up at
// once, so the mean rate holds while the latency is still measured from
// each event's real emit time.
func waitUntil(clock func() time.Time, t time.Time) {
	if d := t.Sub(clock()); d > 0 {
		time.Sleep(d)
	}
}

// BenchmarkEventLatencyPaced drives one prompt whose adapter emits b.N
// events at 10k events/s and reports the adapter-emit -> client-read
// latency distribution. The client only splits lines (no schema
// validation), so the figures are the server's own overhead plus one pipe.
func BenchmarkEventLatencyPaced(b *testing.B) {
	clock := time.Now // monotonic; both ends must share it
	ad := &paced{n: b.N, interval: 100 * time.Microsecond, clock: clock}
	reg := adapters.NewRegistry()
	reg.Register(ad)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(context.Background(), inR, outW, Options{Registry: reg, DefaultAgent: "paced", Logger: zerolog.Nop()})
		outW.Close()
	}()
	br := bufio.NewReaderSize(outR, 1<<20)
	defer func() { inW.Close(); _, _ = io.Copy(io.Discard, br); <-done }()
	send := func(id int, method, params string) {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
	}
	send(1, "initialize", `{"protocolVersion":1}`)
	send(2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, b.TempDir()))
	var sid string
	for sid == "" {
		line, err := br.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		var m struct {
			ID     int `json:"id"`
			Result struct {
				SessionID string `json:"sessionId"`
			} `json:"result"`
		}
		if json.Unmarshal(line, &m) == nil && m.ID == 2 {
			sid = m.Result.SessionID
		}
	}
	recv := make([]time.Time, b.N)
	b.ResetTimer()
	send(3, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}`, sid))
	marker := []byte(`"text":"ev-`)
	for got := 0; got < b.N; {
		line, err := br.ReadBytes('\n')
		now := clock()
		if err != nil {
			b.Fatal(err)
		}
		i := bytes.Index(line, marker)
		if i < 0 {
			continue
		}
		rest := line[i+len(marker):]
		n, err := strconv.Atoi(string(rest[:bytes.IndexByte(rest, '"')]))
		if err != nil || n >= b.N {
			b.Fatalf("bad event line %q", line)
		}
		recv[n] = now
		got++
	}
	b.StopTimer()
	lat := make([]time.Duration, b.N)
	for i := range lat {
		lat[i] = recv[i].Sub(ad.emitted[i])
	}
	slices.Sort(lat)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	b.ReportMetric(us(lat[len(lat)/2]), "p50-µs")
	b.ReportMetric(us(lat[len(lat)*99/100]), "p99-µs")
	b.ReportMetric(us(lat[len(lat)-1]), "max-µs")
	if el := ad.emitted[b.N-1].Sub(ad.emitted[0]); el > 0 && b.N > 1 {
		b.ReportMetric(float64(b.N-1)/el.Seconds(), "events/s")
	}
}
