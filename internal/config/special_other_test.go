//go:build !unix

package config

import "testing"

func makeSpecial(t *testing.T, _, _ string) { t.Skip("FIFOs and /dev/zero are Unix files") }
