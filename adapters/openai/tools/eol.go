package tools

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
)

// isCRLF reports whether s has line breaks and all of them are \r\n, as
// files written on Windows often do. Mixed files are left as they are.
func isCRLF(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func toCRLF(s string) string { return strings.ReplaceAll(toLF(s), "\n", "\r\n") }

// utf16Text decodes data that starts with a UTF-16 byte order mark, as
// Windows PowerShell 5.1's > redirection and some Windows tools write;
// ok is false for anything else.
func utf16Text(data []byte) (text string, ok bool) {
	if len(data) < 2 || len(data)%2 != 0 {
		return "", false
	}
	var order binary.ByteOrder
	switch {
	case data[0] == 0xFF && data[1] == 0xFE:
		order = binary.LittleEndian
	case data[0] == 0xFE && data[1] == 0xFF:
		order = binary.BigEndian
	default:
		return "", false
	}
	units := make([]uint16, len(data)/2-1)
	for i := range units {
		units[i] = order.Uint16(data[2+2*i:])
	}
	return string(utf16.Decode(units)), true
}
