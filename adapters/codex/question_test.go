package codex

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// codex hears the user's answers by question id; a refusal is an empty
// answer, and a front end that cannot ask is an error codex shows its model.
func TestUserInputResult_AnswersCodexByQuestionID(t *testing.T) {
	tests := []struct {
		name    string
		a       adapters.Answers
		want    string
		wantErr bool
	}{
		{name: "answered", a: adapters.Answers{Values: map[string][]string{"lang": {"Go"}}}, want: `{"answers":{"lang":{"answers":["Go"]}}}`},
		{name: "declined", a: adapters.Answers{Declined: true}, want: `{"answers":{}}`},
		{name: "cannot ask", a: adapters.Answers{Err: adapters.ErrCannotAsk}, wantErr: true},
		{name: "cancelled", a: adapters.Answers{Cancelled: true}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _, err := userInputResult(tc.a)
			var rpcErr *jsonrpc.Error
			if tc.wantErr != errors.As(err, &rpcErr) {
				t.Fatalf("err = %v, want a JSON-RPC error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			b, _ := json.Marshal(res)
			if string(b) != tc.want {
				t.Fatalf("result %s, want %s", b, tc.want)
			}
		})
	}
}
