package httpapi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/queryapi"
)

func TestCheckUnicode(t *testing.T) {
	tests := []struct {
		name, body string
		ok         bool
	}{
		{"plain", `{"a":"hello 你好"}`, true},
		{"pair", `{"a":"\ud83d\ude00"}`, true},
		{"pair upper case", `{"a":"\uD83D\uDE00"}`, true},
		{"escaped backslash", `{"a":"\\ud800"}`, true},
		{"escaped quote", `{"a":"\"\ud800\""}`, false},
		{"surrogate outside a string", `{"\\":1,"b":"x"}`, true},
		{"lone high", `{"a":"x\ud800y"}`, false},
		{"lone high at end", `{"a":"\ud800"}`, false},
		{"high then high", `{"a":"\ud800\ud800"}`, false},
		{"high then other escape", `{"a":"\ud800\n"}`, false},
		{"lone low", `{"a":"\udc00"}`, false},
		{"not utf-8", "{\"a\":\"\xed\xa0\x80\"}", false}, // a surrogate as UTF-8 bytes
		{"cut sequence", "{\"a\":\"\xe4\xbd\"}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckUnicode([]byte(tt.body)); (err == nil) != tt.ok {
				t.Fatalf("CheckUnicode(%q) = %v, want ok %v", tt.body, err, tt.ok)
			}
		})
	}
}

func TestCheckPresence(t *testing.T) {
	tests := []struct {
		name string
		body string
		dst  any
		want string // part of the error; "" for none
	}{
		{"absent top_k", `{"query_text":"a"}`, &queryapi.SemanticParams{}, ""},
		{"top_k 1", `{"query_text":"a","top_k":1}`, &queryapi.SemanticParams{TopK: 1}, ""},
		{"top_k 0", `{"query_text":"a","top_k":0}`, &queryapi.SemanticParams{}, "top_k must be at least 1"},
		{"top_k null", `{"query_text":"a","top_k":null}`, &queryapi.SemanticParams{}, ""},
		{"min_score -1", `{"query_text":"a","min_score":-1}`, &queryapi.SemanticParams{MinScore: -1}, ""},
		{"missing required", `{}`, &queryapi.LexicalParams{}, "query_text is required"},
		{"case-folded name", `{"Query_Text":"a","PAGE_SIZE":0}`, &queryapi.LexicalParams{QueryText: "a"}, "page_size must be at least 1"},
		{"nested in an array", `{"recent_messages":[{"text":"a"},{"sender_id":"x"}]}`,
			&ingest.TurnEnd{RecentMessages: []ingest.RecentMessage{{Text: "a"}, {SenderID: "x"}}}, "recent_messages[1].text is required"},
		{"empty text present", `{"recent_messages":[{"text":""}]}`, &ingest.TurnEnd{RecentMessages: []ingest.RecentMessage{{}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPresence([]byte(tt.body), reflect.ValueOf(tt.dst), "")
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("CheckPresence(%s) = %v, want %q", tt.body, err, tt.want)
			}
		})
	}
}
