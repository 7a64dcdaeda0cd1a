// Package transcript is hub's one conversation record: JSONL, one file per
// session, one record per line, appended as the turn goes and synced when
// it ends. The native loop writes its history there (and resumes from it);
// with `transcripts = true` every agent's normalized Event stream is
// written in the same format, for audit; hub acp's session index keeps
// each session in it (its protocol updates, and its metadata in the
// session records it appends), and hub run its runs' briefs. One reader
// (Read, with the formats written before this one; Latest for a listing)
// and one exporter (Markdown) serve them all. A torn last line, left by a
// crash in the middle of a write, is skipped on reading and the records
// before it are kept.
package transcript

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/mask"
	"github.com/hubdev/hub/internal/safefile"
)

// Version is the record format; a reader skips records of a later one.
const Version = 1

// Record types.
const (
	TypeSession    = "session"    // the first record: Meta
	TypePrompt     = "prompt"     // the user's prompt of a turn
	TypeMessage    = "message"    // one native-loop history message, as sent to the model
	TypeCompaction = "compaction" // history before the last Kept messages became Summary
	TypeEvent      = "event"      // one normalized agent Event
	TypeTurnEnd    = "turn_end"   // the turn ended with Stop
	TypeUpdate     = "update"     // one ACP session/update, as hub acp sent it
	TypeBrief      = "brief"      // what a hub run kept of its conversation
)

// latestMax bounds what a listing reads of one file (Latest from its end,
// List its first line): a session record is a few KB, a turn's updates
// that a crash left after the last one rarely more than a few MB.
const latestMax = 16 << 20

// ErrNotFound means hub has no transcript for a session id.
var ErrNotFound = errors.New("no transcript for this session")

// Record is one line of a transcript. Exactly the fields of its Type are set.
type Record struct {
	V    int       `json:"v"`
	Type string    `json:"type"`
	Time time.Time `json:"t"`

	Session *Meta              `json:"session,omitempty"`
	Agent   string             `json:"agent,omitempty"` // on a prompt: the agent it went to
	Prompt  []adapters.Content `json:"prompt,omitempty"`
	Message json.RawMessage    `json:"message,omitempty"`
	Event   *adapters.Event    `json:"event,omitempty"`
	Summary string             `json:"summary,omitempty"`
	Kept    int                `json:"kept,omitempty"`
	Stop    string             `json:"stop,omitempty"`
	Update  json.RawMessage    `json:"update,omitempty"`
	Brief   *handover.Brief    `json:"brief,omitempty"`
}

// Meta describes the session a transcript belongs to. A resume appends
// another session record, as each save of hub acp's index does: the last
// one wins.
type Meta struct {
	ID      string    `json:"id"`
	Agent   string    `json:"agent"`
	Cwd     string    `json:"cwd,omitempty"`
	Model   string    `json:"model,omitempty"`
	Title   string    `json:"title,omitempty"`
	Created time.Time `json:"created,omitzero"`
	// State is what a front end keeps of the session besides (hub acp's
	// index: its Record), in the session record each change appends.
	State json.RawMessage `json:"state,omitempty"`
}

// Path is the file of session id's transcript in dir; id must be 1 to 200
// letters, digits, '.', '_' and '-', without "..". (A plain loop: the
// regexp it replaces compiled to 200 states at every start of hub and its
// supervisor.)
func Path(dir, id string) (string, error) {
	if len(id) == 0 || len(id) > 200 || strings.Contains(id, "..") || strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) {
		return "", fmt.Errorf("session id %q cannot name a transcript", id)
	}
	return filepath.Join(dir, id+".jsonl"), nil
}

// Writer appends records to one transcript. Its methods are safe for
// concurrent use. A failed write is kept and returned by Sync and Close,
// so the caller can report it once.
type Writer struct {
	mu    sync.Mutex
	f     *os.File
	err   error
	dirty bool
}

// Open opens session meta.ID's transcript in dir for appending, creating
// it (and dir) when needed, and appends meta as a session record.
func Open(dir string, meta Meta) (*Writer, error) {
	w, err := openWriter(dir, meta.ID)
	if err != nil {
		return nil, err
	}
	meta.Created = cmp.Or(meta.Created, time.Now())
	w.Write(Record{Type: TypeSession, Session: &meta})
	return w, w.Sync()
}

// Append adds recs to session id's transcript in dir in one write, unsynced
// (a turn costs no fsync), for a writer that does not keep the file open
// (hub acp's index).
func Append(dir, id string, recs []Record) error {
	buf, err := encode(recs...)
	if err != nil {
		return err
	}
	w, err := openWriter(dir, id)
	if err != nil {
		return err
	}
	_, err = w.f.Write(buf)
	return errors.Join(err, w.f.Close())
}

// Replace writes recs as session id's whole transcript, atomically, for a
// record rewritten whole each time (hub run's).
func Replace(dir, id string, recs []Record) error {
	p, err := Path(dir, id)
	buf, eerr := encode(recs...)
	if err := errors.Join(err, eerr); err != nil {
		return err
	}
	return safefile.WriteAtomic(p, buf, 0o600)
}

func openWriter(dir, id string) (*Writer, error) {
	p, err := Path(dir, id)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("transcript dir: %w", err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	w := &Writer{f: f}
	if err := w.endTorn(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// endTorn cuts a torn last line (a crash during a write) off the file, so
// the records appended next follow the last whole one.
func (w *Writer) endTorn() error {
	end, err := w.f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("read transcript: %w", err)
	}
	cut, err := lastNewline(w.f, 0, end)
	if err != nil || cut == end {
		return err
	}
	if err := w.f.Truncate(cut); err != nil {
		return fmt.Errorf("cut the torn end of the transcript: %w", err)
	}
	return nil
}

// lastNewline is the offset just after the last newline between floor and
// end (floor when there is none), reading backwards from end.
func lastNewline(f *os.File, floor, end int64) (int64, error) {
	buf := make([]byte, 1<<10) // a whole last line is the usual case
	for off := end; off > floor; {
		n := min(int64(len(buf)), off-floor)
		off -= n
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return 0, fmt.Errorf("read transcript: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
	}
	return floor, nil
}

// Write appends one record, stamping its version and time.
func (w *Writer) Write(r Record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || w.f == nil {
		return
	}
	data, err := encode(r)
	if err == nil {
		_, err = w.f.Write(data)
	}
	w.err, w.dirty = err, true
}

// encode is recs' lines, stamped with the version and time, secrets masked.
func encode(recs ...Record) (out []byte, err error) {
	for _, r := range recs {
		r.V, r.Time = Version, cmp.Or(r.Time, time.Now())
		data, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("encode transcript record: %w", err)
		}
		out = append(append(out, mask.Default().JSON(data)...), '\n')
	}
	return out, nil
}

// Sync syncs what was written, at the end of a turn.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncLocked()
}

func (w *Writer) syncLocked() error {
	if w.err != nil || w.f == nil || !w.dirty {
		return w.err
	}
	if err := w.f.Sync(); err != nil {
		w.err = fmt.Errorf("sync transcript: %w", err)
	}
	w.dirty = false
	return w.err
}

// Close syncs and closes the file. Idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	err := w.syncLocked()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close transcript: %w", cerr)
	}
	w.f = nil
	return err
}

// Read returns the records of session id's transcript in dir. A line that
// does not parse is skipped; anywhere but last (a torn write) it is also
// an error, returned with every other record. Records of a later format
// version are skipped.
func Read(dir, id string) ([]Record, error) {
	p, err := Path(dir, id)
	if err != nil {
		return nil, err
	}
	_ = migrate(dir, id)
	data, err := readFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	return parse(data, p)
}

// readFile reads the regular file p whole; a FIFO or a device, where a
// session's file should be, is refused, not waited on or read forever.
func readFile(p string) ([]byte, error) {
	f, err := safefile.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Latest is the last session record of session id's transcript in dir,
// read from the end of the file: a writer that ends each append with a
// session record (hub acp's index) finds its current metadata in the last
// line, or the one before a torn write. It reads no further back than
// latestMax.
func Latest(dir, id string) (Meta, error) {
	p, err := Path(dir, id)
	if err != nil {
		return Meta{}, err
	}
	_ = migrate(dir, id)
	f, err := safefile.Open(p)
	if err != nil {
		return Meta{}, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	defer f.Close()
	end, err := f.Seek(0, io.SeekEnd)
	floor := max(0, end-latestMax)
	for err == nil && end > floor {
		var start int64
		if start, err = lastNewline(f, floor, end-1); err == nil {
			line := make([]byte, end-start)
			_, err = f.ReadAt(line, start)
			if recs, _ := parse(line, p); err == nil && len(recs) == 1 && recs[0].Session != nil {
				return *recs[0].Session, nil
			}
		}
		end = start
	}
	return Meta{}, fmt.Errorf("%s: %w", id, cmp.Or(err, ErrNotFound))
}

// parse reads data's records as Read says: a reader that must not go on
// without a corrupt line (a conversation resumed) refuses on the error.
func parse(data []byte, name string) ([]Record, error) {
	lines := bytes.Split(bytes.TrimRightFunc(data, unicode.IsSpace), []byte{'\n'}) // a torn write is the last line
	var out []Record
	var bad []error // a corrupt line costs only itself: the records after it are read
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Record
		err := json.Unmarshal(line, &r)
		if old, ok := legacyUpdate(line, r); ok {
			r, err = old, nil
		}
		if err != nil {
			if i < len(lines)-1 {
				bad = append(bad, fmt.Errorf("%s line %d: %w", name, i+1, err))
			}
			continue
		}
		if r.V > Version {
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(bad...)
}

// Summary describes one transcript for listings.
type Summary struct {
	Meta
	Updated time.Time `json:"updated"`
}

// List returns the transcripts in dir, newest first, reading only each
// file's first record.
func List(dir string) ([]Summary, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list transcripts: %w", err)
	}
	var out []Summary
	for _, e := range entries {
		name := e.Name()
		if id, old := strings.CutSuffix(name, ".json"); old && migrate(dir, id) == nil && !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == id+".jsonl" }) {
			name = id + ".jsonl"
		}
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		if s, ok := summaryOf(filepath.Join(dir, name)); ok {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

func summaryOf(p string) (Summary, bool) {
	f, err := safefile.Open(p)
	if err != nil {
		return Summary{}, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Summary{}, false
	}
	line, _ := bufio.NewReader(io.LimitReader(f, latestMax)).ReadBytes('\n') // nothing read does not decode
	var r Record
	if json.Unmarshal(line, &r) != nil || r.Type != TypeSession || r.Session == nil {
		return Summary{}, false
	}
	return Summary{Meta: *r.Session, Updated: st.ModTime()}, true
}

// Prune removes all but the keep newest transcripts in dir and returns the paths it
// removed, for the files a caller keeps beside them.
func Prune(dir string, keep int) []string {
	if entries, err := os.ReadDir(dir); err != nil || len(entries) <= keep {
		return nil
	}
	all, _ := List(dir) // newest first
	var gone []string
	for _, s := range all[min(keep, len(all)):] {
		_ = Remove(dir, s.ID)
		if p, err := Path(dir, s.ID); err == nil { // an id read from the file: no path
			gone = append(gone, p)
		}
	}
	return gone
}

// Remove deletes session id's transcript; removing one that does not exist
// is ErrNotFound.
func Remove(dir, id string) error {
	p, err := Path(dir, id)
	if err != nil {
		return err
	}
	_ = migrate(dir, id) // an old record goes too
	if err := os.Remove(p); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %w", id, ErrNotFound)
	} else if err != nil {
		return fmt.Errorf("remove transcript: %w", err)
	}
	return nil
}
