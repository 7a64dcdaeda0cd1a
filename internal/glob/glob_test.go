package glob

import "testing"

func TestRegexp_DoubleStarCrossesDirs(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"**/*.go", "a/b/c.go", true},
		{"**/*.go", "c.go", true},
		{"*.go", "a/c.go", false},
		{"src/**", "src/x/y", true},
		{"a?c", "abc", true},
		{"a?c", "a/c", false},
		{"*.env", "prod.env", true},
		{"a.b", "axb", false},
	}
	for _, tc := range cases {
		if got := Regexp(tc.glob).MatchString(tc.path); got != tc.want {
			t.Errorf("%q ~ %q = %v, want %v", tc.glob, tc.path, got, tc.want)
		}
	}
}
