package storage

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPhraseBudgetPages: when the phrase check's budget ends a page before
// it is full, its cursor goes on from there and the pages together hold
// every match exactly once.
func TestPhraseBudgetPages(t *testing.T) {
	s, err := Open(t.Context(), Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pad := strings.Repeat("哈", 300)
	s.phraseBytesMax = 8 * len(pad) // stands for maxPhraseBytes: about 8 messages a page
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	var msgs []Message
	matches := 0
	for i := range 40 {
		content := pad + "散步在西湖的边上" // every character, never the phrase
		if i%5 == 0 {
			content = pad + "西湖边散步"
			matches++
		}
		msgs = append(msgs, Message{ID: fmt.Sprintf("m%02d", i), Role: RoleUser, Content: content, CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := s.Insert(t.Context(), "u1", msgs); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	cursor, pages, short := "", 0, 0
	for {
		hits, next, err := s.LexicalSearch(t.Context(), "u1", LexicalQuery{Text: `"湖边散"`, Size: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(hits) < 3 && next != "" {
			short++
		}
		for _, h := range hits {
			seen[h.Message.ID]++
		}
		if next == "" || pages > 100 {
			break
		}
		cursor = next
	}
	if len(seen) != matches {
		t.Errorf("found %d of %d matches over %d pages: %v", len(seen), matches, pages, seen)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s on %d pages", id, n)
		}
	}
	if short == 0 {
		t.Errorf("no page was cut short by the budget (%d pages)", pages)
	}
}
