package ingest

import (
	"regexp"
	"slices"
	"strings"
)

// This file is the historian's gate, shared by both historians: the rule
// check for relative words left in a rewrite (gate in rewrite.go) and the
// id-drift check, which force does not skip.

// material is what a rewrite may take entity ids from: the turn's ids and
// the text the bot and the chat supplied.
type material struct {
	ids  map[string]bool
	text string
}

func materialOf(t TurnEnd) material {
	m := material{ids: map[string]bool{}}
	var sb strings.Builder
	add := func(id string) {
		if id != "" {
			m.ids[id] = true
		}
	}
	add(t.SenderID)
	add(t.GroupID)
	for _, s := range append([]string{t.SourceMessage, t.Memo}, t.Observations...) {
		sb.WriteString(s)
		sb.WriteByte('\n')
	}
	for _, r := range t.RecentMessages {
		add(r.SenderID)
		sb.WriteString(r.Text)
		sb.WriteByte('\n')
	}
	m.text = sb.String()
	return m
}

// drift returns the ids, in order and each once, that appear nowhere in m.
func (m material) drift(ids []string) []string {
	var out []string
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" || m.ids[id] || strings.Contains(m.text, id) || slices.Contains(out, id) {
			continue
		}
		out = append(out, id)
	}
	return out
}

var (
	// parenthesized is a token in parentheses, where a rewrite writes an
	// entity's id after its name: 张三(qq:10001), Alice (u42).
	parenthesized = regexp.MustCompile(`[(（]\s*([^()（）\s]{1,128})\s*[)）]`)
	idLike        = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:@#/+-]*$`)
	// notIDs are dates, times and short numbers, which rewrites put in
	// parentheses too.
	notID = regexp.MustCompile(`^(?:\d{1,4}|\d{4}([-/.]\d{1,2}){1,2}|\d{1,2}:\d{2}(:\d{2})?|\d{1,2}[-/.]\d{1,2})$`)
)

// textIDs returns the entity ids written in s as "name(id)": parenthesized
// tokens of id characters with a digit in them, dates and times excepted.
func textIDs(s string) []string {
	var out []string
	for _, m := range parenthesized.FindAllStringSubmatch(s, -1) {
		tok := m[1]
		if !idLike.MatchString(tok) || !strings.ContainsAny(tok, "0123456789") || notID.MatchString(tok) {
			continue
		}
		if !slices.Contains(out, tok) {
			out = append(out, tok)
		}
	}
	return out
}

// verdict is the gate's judgement of one rewrite.
type verdict struct {
	leftovers []string // relative words left
	drift     []string // entity ids not in the source
}

// retry reports whether the rewrite should be done again: ids drifted, or
// relative words are left and the bot did not force them through.
func (v verdict) retry(force bool) bool {
	return len(v.drift) > 0 || (len(v.leftovers) > 0 && !force)
}

// outcome is whether the event is absolute and what its warning says.
// Force stores a rewrite with relative words left as absolute, saying so;
// it never covers id drift, as an id the source does not show is made up.
func (v verdict) outcome(force bool) (absolute bool, warning string) {
	var parts []string
	if len(v.drift) > 0 {
		parts = append(parts, "entity ids not in the source: "+strings.Join(v.drift, ", "))
	}
	if len(v.leftovers) > 0 {
		w := "relative words left: " + strings.Join(v.leftovers, ", ")
		if force && len(v.drift) == 0 {
			w = "forced past the check; " + w
		}
		parts = append(parts, w)
	}
	absolute = len(v.drift) == 0 && (len(v.leftovers) == 0 || force)
	return absolute, strings.Join(parts, "; ")
}
