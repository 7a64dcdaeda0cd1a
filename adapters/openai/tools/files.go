package tools

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/text/encoding/unicode"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/safefile"
)

const (
	defaultReadLimit = 2000
	maxLineLen       = 2000
	maxFileBytes     = 10 << 20
)

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

func prepareRead(e *Env, a readArgs) (*Prepared, error) {
	offset, limit := max(a.Offset, 1), cmp.Or(max(a.Limit, 0), defaultReadLimit)
	return e.onFile("Read", a.Path, offset, func(ctx context.Context, p string) Result { return e.read(ctx, p, offset, limit) })
}

func (e *Env) read(ctx context.Context, p string, offset, limit int) Result {
	if e.Editor != nil && e.Editor.CanReadFile() {
		if _, _, err := e.present(p); err != nil {
			return failed("%v", err)
		}
		s, err := e.Editor.ReadTextFile(ctx, p, offset, limit)
		if err != nil {
			return failed("read %s via editor: %v", e.rel(p), err)
		}
		return Result{Output: number(strings.Split(strings.TrimSuffix(s, "\n"), "\n"), offset, 0, e.OutputCap)}
	}
	data, err := safefile.ReadIn(e.Root, e.rel(p), maxFileBytes)
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		return failed("%s is over the %d byte limit; use grep or bash (head/sed) to read parts", e.rel(p), maxFileBytes)
	case errors.Is(err, safefile.ErrNotRegular):
		return failed("%s is not a regular file; use glob to list a folder's files", e.rel(p))
	case err != nil:
		return failed("read %s: %v", e.rel(p), err)
	}
	body := string(data)
	if text, ok := utf16Text(data); ok {
		body = text
	} else if isBinary(data) {
		return Result{Output: fmt.Sprintf("%s is a binary file (%d bytes); not shown", e.rel(p), len(data))}
	}
	if body == "" {
		return Result{Output: fmt.Sprintf("%s is empty", e.rel(p))}
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if offset > len(lines) {
		return failed("%s has %d lines; offset %d is past the end", e.rel(p), len(lines), offset)
	}
	end := offset - 1 + min(limit, len(lines)-offset+1) // limit may be any int the model sends
	return Result{Output: number(lines[offset-1:end], offset, len(lines), e.OutputCap)}
}

func number(lines []string, first, total, capBytes int) string {
	var b strings.Builder
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if len(l) > maxLineLen {
			l = l[:maxLineLen] + "… [line cut]"
		}
		if capBytes > 0 && b.Len()+len(l) > capBytes {
			fmt.Fprintf(&b, "[output cut at %d bytes; continue with offset=%d]\n", capBytes, first+i)
			return b.String()
		}
		fmt.Fprintf(&b, "%6d\t%s\n", first+i, l)
	}
	if last := first + len(lines) - 1; total > last {
		fmt.Fprintf(&b, "[%d more lines; continue with offset=%d]\n", total-last, last+1)
	}
	return b.String()
}

func isBinary(data []byte) bool {
	head := data[:min(len(data), 8000)]
	return bytes.IndexByte(head, 0) >= 0
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func prepareWrite(e *Env, a writeArgs) (*Prepared, error) {
	return e.onFile("Write", a.Path, 0, func(ctx context.Context, p string) Result { return e.writeFile(ctx, p, a.Content) })
}

func (e *Env) writeFile(ctx context.Context, p, content string) Result {
	old, existed, err := e.current(ctx, p)
	if err != nil {
		return failed("%v", err)
	}
	// Models write \n; a file that uses \r\n keeps it.
	if existed && isCRLF(old) && !strings.Contains(content, "\r") {
		content = toCRLF(content)
	}
	if err := e.write(ctx, p, content); err != nil {
		return failed("%v", err)
	}
	var oldPtr *string
	if existed {
		oldPtr = &old
	}
	return Result{
		Output:  fmt.Sprintf("wrote %d bytes to %s", len(content), e.rel(p)),
		Content: []adapters.ToolContent{{Type: adapters.ToolContentDiff, Path: p, OldText: oldPtr, NewText: content}},
	}
}

type editArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func prepareEdit(e *Env, a editArgs) (*Prepared, error) {
	if a.OldString == "" {
		return nil, fmt.Errorf("%w: old_string is empty; use write_file to create a file", ErrBadArgs)
	}
	if a.OldString == a.NewString {
		return nil, fmt.Errorf("%w: old_string and new_string are identical", ErrBadArgs)
	}
	return e.onFile("Edit", a.Path, 0, func(ctx context.Context, p string) Result { return e.edit(ctx, p, a) })
}

func (e *Env) edit(ctx context.Context, p string, a editArgs) Result {
	old, existed, err := e.current(ctx, p)
	if err != nil {
		return failed("%v", err)
	}
	if !existed {
		return failed("%s does not exist; use write_file to create it", e.rel(p))
	}
	// A \r\n file is matched and edited as \n text, then written back
	// with \r\n, so old_string copied from read_file (which hides \r) fits.
	text, from, to := old, a.OldString, a.NewString
	crlf := isCRLF(old)
	if crlf {
		text, from, to = toLF(old), toLF(from), toLF(to)
	}
	n := strings.Count(text, from)
	switch {
	case n == 0:
		return failed("old_string not found in %s; read the file again and copy the exact text, including whitespace", e.rel(p))
	case n > 1 && !a.ReplaceAll:
		return failed("old_string matches %d times in %s; include more surrounding lines to make it unique, or set replace_all", n, e.rel(p))
	}
	updated := strings.Replace(text, from, to, map[bool]int{true: -1, false: 1}[a.ReplaceAll])
	if crlf {
		updated = toCRLF(updated)
	}
	if err := e.write(ctx, p, updated); err != nil {
		return failed("%v", err)
	}
	line := strings.Count(text[:strings.Index(text, from)], "\n") + 1
	return Result{
		Output:    fmt.Sprintf("edited %s (%d replacement(s))", e.rel(p), map[bool]int{true: n, false: 1}[a.ReplaceAll]),
		Content:   []adapters.ToolContent{adapters.EditDiff(p, old, updated)},
		Locations: []adapters.Location{{Path: p, Line: line}},
	}
}

func (e *Env) current(ctx context.Context, p string) (string, bool, error) {
	if e.Editor != nil && e.Editor.CanReadFile() {
		if ok, _, err := e.present(p); !ok || err != nil {
			return "", false, err
		}
		s, err := e.Editor.ReadTextFile(ctx, p, 0, 0)
		if err != nil {
			return "", false, fmt.Errorf("read %s via editor: %w", e.rel(p), err)
		}
		return s, true, nil
	}
	data, err := safefile.ReadIn(e.Root, e.rel(p), maxFileBytes) // never blocks on a FIFO, which writing would too
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", e.rel(p), err)
	}
	if _, ok := utf16Text(data); ok {
		return "", true, fmt.Errorf("%s is UTF-16 text; edit_file and write_file keep UTF-8 only, so change it with the bash tool or convert it to UTF-8 first", e.rel(p))
	}
	if isBinary(data) {
		return "", true, fmt.Errorf("%s is a binary file; refusing to edit it as text", e.rel(p))
	}
	return string(data), true, nil
}

func (e *Env) write(ctx context.Context, p, content string) error {
	if e.Editor != nil && e.Editor.CanWriteFile() {
		_, linked, err := e.present(p)
		if err != nil {
			return err
		}
		if !linked { // an editor writes a hard link in place, reaching its other names: WriteIn replaces it
			if err := e.Editor.WriteTextFile(ctx, p, content); err != nil {
				return fmt.Errorf("write %s via editor: %w", e.rel(p), err)
			}
			return nil
		}
	}
	if err := safefile.WriteIn(e.Root, e.rel(p), []byte(content)); err != nil {
		return fmt.Errorf("write %s: %w", e.rel(p), err)
	}
	return nil
}

// present fails when a link stands on p's path now (safefile.OpenIn): the
// editor opens by path, so it is not handed one swapped in since the check
// (it may still meet one swapped in after). linked: safefile.Linked.
func (e *Env) present(p string) (exists, linked bool, err error) {
	f, err := safefile.OpenIn(e.Root, e.rel(p), os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("%s: %w", e.rel(p), err)
	}
	return true, safefile.Linked(f), f.Close()
}

// isCRLF: mixed files are left as they are.
func isCRLF(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func toCRLF(s string) string { return strings.ReplaceAll(toLF(s), "\n", "\r\n") }

// utf16Text decodes data that starts with a UTF-16 byte order mark, as
// Windows PowerShell 5.1's > redirection writes.
func utf16Text(data []byte) (text string, ok bool) {
	if len(data)%2 != 0 || !bytes.HasPrefix(data, []byte{0xFF, 0xFE}) && !bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return "", false
	}
	b, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(data) // the BOM picks the order
	return string(b), err == nil
}
