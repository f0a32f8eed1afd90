package storage

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// maxFuzzQueryRunes is queryapi.MaxQueryRunes, the longest query_text the
// API lets through to LexicalSearch (queryapi imports storage).
const maxFuzzQueryRunes = 2000

// FuzzLexicalQuery sends arbitrary text, with every kind of quote, CJK and
// query syntax, through splitQuery and the Bleve query LexicalSearch builds
// (all and any, plain and contextual). It must not panic; phrases come from
// the (valid UTF-8) text; the search fails only with ErrInvalid, ends within two seconds
// and returns only the caller's messages.
func FuzzLexicalQuery(f *testing.F) {
	for _, seed := range []string{
		`"不吃辣"`, `“不吃辣”`, `「火锅」 『会议』 ‘single’ 'single' «guillemets» „low“ ＂fullwidth＂`, `"unbalanced`, `“unbalanced`,
		`""`, `" "`, `"""`, `"a" "b" "c"`, `"project Atlas" budget`, `spicy noodles`, `辣`, `火锅 budget Atlas`,
		`user_id:qq\:2 OR *`, `+spicy -noodles AND (a OR b) NOT c~2 d^3 /re.*x/ [1 TO 5] {a TO b} _all:x content:y`,
		`*`, `?`, `\`, `\"`, `'`, "\x00", "\xff", "\u200b", `👍`, `...`, `!!!`, `哈`, `ok`, "a\u0301",
		`secretmk`, `"secretmk"`, `u2`, `_id:1`,
		strings.Repeat("word ", 400), strings.Repeat("辣", 2000), strings.Repeat(`"`, 2000), strings.Repeat(`“`, 2000),
		strings.Repeat("AND OR ", 285), `"我们这个周末"`, `"杭州西湖"`, `"龙井虾仁和"`,
	} {
		f.Add(seed, false, false)
	}
	f.Add(`"spicy noodles"`, true, false)
	f.Add(`火锅 "budget"`, true, true)
	s, err := Open(f.Context(), Config{Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var msgs []Message
	for i, c := range []string{
		"我们这个周末打算去杭州西湖边上走一走，顺便尝尝那边有名的龙井虾仁和西湖醋鱼",
		"I really love spicy noodles, and project Atlas has the budget for them",
		"周五的 design review 之后我们 decided to 把 project Atlas 的 launch 推迟",
		"我不吃辣，一点都不行 \"quoted\" “中文引号” 「括号」",
		"ok", "👍", "", "user_id:u2 secretmk? no: *",
	} {
		msgs = append(msgs, Message{ID: "m" + string(rune('a'+i)), Role: RoleUser, ConversationID: "c", Content: c, CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := s.Insert(f.Context(), "u1", msgs); err != nil {
		f.Fatal(err)
	}
	if _, err := s.Insert(f.Context(), "u2", []Message{{ID: "ma", Role: RoleUser, Content: "secretmk spicy noodles 我不吃辣 project Atlas", CreatedAt: at}}); err != nil {
		f.Fatal(err)
	}
	if err := s.Drain(f.Context(), nil); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, anyWord, contextual bool) {
		if utf8.RuneCountInString(text) > maxFuzzQueryRunes {
			return
		}
		words, phrases := splitQuery(text)
		valid := utf8.ValidString(text) // queryapi refuses the rest; splitQuery reads bad bytes as U+FFFD
		if utf8.RuneCountInString(words) > utf8.RuneCountInString(text) {
			t.Fatalf("words %q longer than the text", words)
		}
		for _, p := range phrases {
			if p == "" || p != strings.TrimSpace(p) || (valid && !strings.Contains(text, p)) {
				t.Fatalf("phrase %q of %q", p, text)
			}
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		start := time.Now()
		q := LexicalQuery{Text: text, Any: anyWord, Contextual: contextual, Size: 3}
		hits, next, err := s.LexicalSearch(ctx, "u1", q)
		if err == nil && next != "" {
			q.Cursor = next
			var more []Hit
			more, _, err = s.LexicalSearch(ctx, "u1", q)
			hits = append(hits, more...)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("%q took %s", text, d)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("%q: %v", text, err)
		}
		for _, h := range hits {
			if h.UserID != "u1" {
				t.Fatalf("%q found %s of %s", text, h.ID, h.UserID)
			}
		}
	})
}
