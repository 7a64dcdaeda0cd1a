package safefile

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// OpenIn opens the regular file name (slash-separated) under the folder
// top, through an os.Root following no link: a path checked when it held
// none stays the path opened, whatever is swapped in between (a link is
// ErrLinked, even one to a file under top). os.O_CREATE makes the missing
// folders and file, never through a link; os.O_TRUNC truncates only once the
// file is known to be the one named. A FIFO or device is ErrNotRegular,
// without blocking on it. The Root lives for the call only: one kept open
// would hold top on Windows.
func OpenIn(top, name string, flag int) (*os.File, error) {
	dir, base := path.Split(name)
	d, err := dirIn(top, dir, flag&os.O_CREATE != 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var f *os.File
	err = fs.ErrExist
	if flag&os.O_CREATE != 0 {
		f, err = d.OpenFile(base, flag|os.O_EXCL|openNonblock, 0o644) // O_EXCL follows no link
	}
	if errors.Is(err, fs.ErrExist) {
		f, err = d.OpenFile(base, flag&^(os.O_CREATE|os.O_TRUNC)|openNonblock, 0)
	}
	if err == nil {
		err = same(d, base, f)
	}
	if err == nil && flag&os.O_TRUNC != 0 {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close() // nil when no open succeeded
		return nil, err
	}
	return f, nil
}

// WriteIn sets the contents of the file name, opened by OpenIn with
// O_CREATE; an existing file keeps its mode. A file with other names (hard
// links, which may be outside top: ln ~/.bashrc notes) is replaced by a new
// file, so they keep their contents; a single-named one is written in
// place, not atomically.
func WriteIn(top, name string, data []byte) error {
	f, err := OpenIn(top, name, os.O_WRONLY|os.O_CREATE)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil && Linked(f) {
		f.Close()
		return replaceIn(top, name, data, st.Mode().Perm())
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	return errors.Join(err, f.Close())
}

// Linked reports a file of more than one name (a hard link), or one whose
// names cannot be counted: writing it in place would change its other
// names too, which may be outside the folder it was opened in.
func Linked(f *os.File) bool {
	st, err := f.Stat()
	return err != nil || links(f, st) > 1
}

func replaceIn(top, name string, data []byte, perm fs.FileMode) error {
	dir, base := path.Split(name)
	d, err := dirIn(top, dir, false)
	if err != nil {
		return err
	}
	defer d.Close()
	tmp := "." + base + "-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ".tmp"
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err = errors.Join(err, f.Chmod(perm), f.Close()); err == nil { // Chmod: past the umask
		err = d.Rename(tmp, base)
	}
	if err != nil {
		_ = d.Remove(tmp)
	}
	return err
}

// same checks that f is the regular file at name in d, not one a link leads to.
func same(d *os.Root, name string, f *os.File) error {
	at, err := d.Lstat(name)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		return err
	case !os.SameFile(at, st):
		return fmt.Errorf("%s: %w", name, ErrLinked)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))
	}
	return nil
}

// dirIn opens folder dir of top one name at a time, refusing links.
func dirIn(top, dir string, mkdir bool) (*os.Root, error) {
	d, err := os.OpenRoot(top)
	if err != nil {
		return nil, err
	}
	for _, n := range strings.Split(dir, "/") {
		if n == "" || n == "." {
			continue
		}
		next, err := stepIn(d, n, mkdir)
		d.Close()
		if err != nil {
			return nil, err
		}
		d = next
	}
	return d, nil
}

func stepIn(d *os.Root, name string, mkdir bool) (*os.Root, error) {
	if mkdir {
		if err := d.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	at, err := d.Lstat(name)
	if err != nil {
		return nil, err
	}
	next, err := d.OpenRoot(name) // follows a link inside root (then not the same), refuses one out
	if err != nil {
		return nil, err
	}
	if st, err := next.Stat("."); err != nil || !os.SameFile(at, st) {
		next.Close()
		return nil, fmt.Errorf("%s: %w", name, cmp.Or(err, ErrLinked))
	}
	return next, nil
}
