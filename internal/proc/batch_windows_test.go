package proc

import "testing"

func TestBatchCmdLine_PathAlwaysQuoted(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{`C:\Users\Smith, J\bin\x.cmd`, "--version"}, `"C:\Users\Smith, J\bin\x.cmd" --version`},
		{[]string{`C:\a;b=c\x.bat`}, `"C:\a;b=c\x.bat"`},
		{[]string{`C:\bin\x.cmd`, "two words", `q"uote`}, `"C:\bin\x.cmd" "two words" q\"uote`},
	}
	for _, tt := range tests {
		if got := batchCmdLine(tt.argv); got != tt.want {
			t.Errorf("batchCmdLine(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}
