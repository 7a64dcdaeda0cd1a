package release

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// entry is one file in an archive.
type entry struct {
	name string // path inside the archive
	src  string // file on disk
	mode os.FileMode
}

// writeArchive writes entries to path as .zip or .tar.gz (by target), every
// time set to mtime and no owner names, so the bytes depend on content only,
// and returns the sha256 of the bytes it wrote.
func writeArchive(path string, t Target, entries []entry, mtime time.Time) (sum string, err error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	h := sha256.New()
	w := io.MultiWriter(f, h)
	add, finish := tarGz(w, mtime)
	if t.GOOS == "windows" {
		add, finish = zipped(w, mtime)
	}
	for _, e := range entries {
		data, err := os.ReadFile(e.src)
		if err != nil {
			return "", err
		}
		if err := add(e, data); err != nil {
			return "", fmt.Errorf("%s: %w", e.name, err)
		}
	}
	if err := finish(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tarGz adds files to a gzipped tar written to w; finish ends both streams.
func tarGz(w io.Writer, mtime time.Time) (add func(entry, []byte) error, finish func() error) {
	gz, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // fails only for a bad level
	gz.ModTime = mtime                                    // the header has no file name
	tw := tar.NewWriter(gz)
	add = func(e entry, data []byte) error {
		err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: int64(e.mode.Perm()), Size: int64(len(data)),
			ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX})
		if err == nil {
			_, err = tw.Write(data)
		}
		return err
	}
	return add, func() error { return errors.Join(tw.Close(), gz.Close()) }
}

// zipped adds files to a zip written to w; finish writes its directory.
func zipped(w io.Writer, mtime time.Time) (add func(entry, []byte) error, finish func() error) {
	zw := zip.NewWriter(w)
	add = func(e entry, data []byte) error {
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime.UTC()}
		hdr.SetMode(e.mode)
		fw, err := zw.CreateHeader(hdr)
		if err == nil {
			_, err = fw.Write(data)
		}
		return err
	}
	return add, zw.Close
}
