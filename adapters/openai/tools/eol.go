package tools

import (
	"bytes"
	"strings"

	"golang.org/x/text/encoding/unicode"
)

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
