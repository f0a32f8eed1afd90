package queryapi

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/storage"
)

// Limits of a context request.
const (
	MaxContextMessage = 8 << 10 // bytes of the current message
	// ShortQueryRunes: a query this short gets a line of scene context.
	ShortQueryRunes = 20
)

// ContextParams describe the turn a bot is about to answer; /context returns
// what it should keep in mind for it.
type ContextParams struct {
	// Message is the current message as the bot received it; a <content>
	// element in it, when present, is the text the query is built from.
	Message     string `json:"message"`
	GroupID     string `json:"group_id,omitempty"`
	GroupName   string `json:"group_name,omitempty"`
	SenderID    string `json:"sender_id"`
	SenderName  string `json:"sender_name,omitempty"`
	RequestType string `json:"request_type,omitempty"` // private | group; empty: group when GroupID is set
	AtBot       bool   `json:"at_bot,omitempty"`       // the bot was @-mentioned
}

// ContextConfig are the knobs of context injection.
type ContextConfig struct {
	// Events configures the event search; its AutoTopK is how many events
	// are injected, with the auto-inject half-life.
	Events EventSearchConfig
	// Memos is how many of the latest memos are injected
	// (recent_end_summaries_inject_k).
	Memos int
	// LineMax cuts each injected line to this many characters.
	LineMax int
	// Location is where the times in the block are written; nil is UTC.
	Location *time.Location
}

// ProfileBrief is the part of a profile worth injecting.
type ProfileBrief struct {
	EntityType string    `json:"entity_type"`
	EntityID   string    `json:"entity_id"`
	Name       string    `json:"name"`
	Summary    string    `json:"summary"`
	Tags       []string  `json:"tags"`
	Revision   int       `json:"revision"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// ContextMemo is a memo of an earlier turn with its time.
type ContextMemo struct {
	Content    string    `json:"content"`
	Time       time.Time `json:"time"`
	SenderName string    `json:"sender_name,omitempty"`
}

// ContextResult is what a bot injects for a turn: each part on its own for
// bots that build their prompt themselves, and Block, the same rendered as
// text ready to inject.
type ContextResult struct {
	// Query is what the events were searched with.
	Query        string           `json:"query"`
	Scope        string           `json:"scope"` // private | group
	UserProfile  *ProfileBrief    `json:"user_profile"`
	GroupProfile *ProfileBrief    `json:"group_profile"`
	Events       []EventEvidence  `json:"events"`
	Memos        []ContextMemo    `json:"memos"`
	Memories     []storage.Memory `json:"memories"`
	Block        string           `json:"block"`
	Warnings     []string         `json:"warnings"`
}

var contentElement = regexp.MustCompile(`(?s)<content>(.*?)</content>`)

// contextQuery builds the event query of a turn: the text of the message's
// <content> element when present, else the message; a query of at most
// ShortQueryRunes runes gets a short line of scene context (chat kind,
// @-mention, sender, group name), which is what a short "在吗" or "then?"
// is about.
func contextQuery(p ContextParams, scope string) string {
	text := p.Message
	if m := contentElement.FindStringSubmatch(text); m != nil {
		text = m[1]
	}
	text = strings.Join(strings.Fields(text), " ")
	if n := utf8.RuneCountInString(text); n > MaxQueryRunes {
		// A message may be longer than a search query may be: its
		// beginning is what the events are searched for.
		text = string([]rune(text)[:MaxQueryRunes])
	}
	if utf8.RuneCountInString(text) > ShortQueryRunes {
		return text
	}
	zh := hasHan(text) || hasHan(p.SenderName) || hasHan(p.GroupName) || text == ""
	var parts []string
	switch {
	case scope == RequestGroup && zh:
		parts = append(parts, strings.TrimSpace("群聊 "+p.GroupName))
	case scope == RequestGroup:
		parts = append(parts, strings.TrimSpace("group chat "+p.GroupName))
	case zh:
		parts = append(parts, "私聊")
	default:
		parts = append(parts, "private chat")
	}
	if p.AtBot {
		parts = append(parts, map[bool]string{true: "@机器人", false: "@bot"}[zh])
	}
	if name := cmpOr(p.SenderName, p.SenderID); name != "" {
		parts = append(parts, map[bool]string{true: "发送者 ", false: "sender "}[zh]+name)
	}
	scene := strings.Join(parts, ", ")
	if text == "" {
		return scene
	}
	return text + "\n" + scene
}

// Request types of a context scope.
const (
	RequestPrivate = "private"
	RequestGroup   = "group"
)

func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (p ContextParams) check() (scope string, err error) {
	switch {
	case strings.TrimSpace(p.Message) == "":
		return "", invalid("message is required")
	case len(p.Message) > MaxContextMessage || !utf8.ValidString(p.Message):
		return "", invalid("message must be valid UTF-8 of at most %d bytes", MaxContextMessage)
	case strings.TrimSpace(p.SenderID) == "":
		return "", invalid("sender_id is required")
	}
	for _, f := range []struct{ name, v string }{{"sender_id", p.SenderID}, {"group_id", p.GroupID}} {
		if len(f.v) > storage.MaxIDLen || !utf8.ValidString(f.v) || strings.IndexFunc(f.v, unicode.IsControl) >= 0 {
			return "", invalid("%s must be printable UTF-8 of at most %d bytes", f.name, storage.MaxIDLen)
		}
	}
	for _, f := range []struct{ name, v string }{{"sender_name", p.SenderName}, {"group_name", p.GroupName}} {
		if len(f.v) > storage.MaxIDLen || !utf8.ValidString(f.v) {
			return "", invalid("%s must be UTF-8 of at most %d bytes", f.name, storage.MaxIDLen)
		}
	}
	scope = p.RequestType
	switch {
	case scope == "" && p.GroupID != "":
		scope = RequestGroup
	case scope == "":
		scope = RequestPrivate
	case scope != RequestPrivate && scope != RequestGroup:
		return "", invalid("request_type must be private or group, not %q", scope)
	}
	if scope == RequestGroup && p.GroupID == "" {
		return "", invalid("group_id is required in a group")
	}
	return scope, nil
}

// Context assembles what the bot should keep in mind for the turn p
// describes: the sender's profile summary, the group's in a group, the
// AutoTopK events most relevant to the message (auto-inject half-life; in a
// group only that group's, in a private chat those of the private chats
// with this sender), the latest memos of the same scope, and the pinned
// memories that apply there.
func (t *Tools) Context(ctx context.Context, p ContextParams, cfg ContextConfig) (ContextResult, error) {
	scope, err := p.check()
	if err != nil {
		return ContextResult{}, err
	}
	if cfg.Memos < 0 || cfg.LineMax < 1 {
		return ContextResult{}, fmt.Errorf("queryapi: context config: memos %d, line max %d", cfg.Memos, cfg.LineMax)
	}
	res := ContextResult{Query: contextQuery(p, scope), Scope: scope, Events: []EventEvidence{}, Memos: []ContextMemo{},
		Memories: []storage.Memory{}, Warnings: []string{}}

	if res.UserProfile, err = t.brief(ctx, storage.EntityUser, p.SenderID); err != nil {
		return ContextResult{}, err
	}
	events := t
	search := SearchEventsParams{Query: res.Query, TopK: cfg.Events.AutoTopK}
	memos := MemosParams{Limit: cfg.Memos}
	var pins storage.MemoryFilter
	if scope == RequestGroup {
		if res.GroupProfile, err = t.brief(ctx, storage.EntityGroup, p.GroupID); err != nil {
			return ContextResult{}, err
		}
		if events, err = t.InGroup(p.GroupID); err != nil {
			return ContextResult{}, err
		}
		memos.GroupID, pins.GroupID = p.GroupID, p.GroupID
	} else {
		// A private chat sees what was said in private with this sender.
		// Group events of the sender drop out below: ask for more.
		search.TargetUserID, search.TopK = p.SenderID, min(2*search.TopK, MaxTopK)
		memos.SenderID, memos.RequestType = p.SenderID, RequestPrivate
		pins.Exact = true // the unscoped memories only
	}
	found, err := events.SearchEvents(ctx, search, EventOptions{Mode: ModeAuto, Config: cfg.Events})
	if err != nil {
		return ContextResult{}, err
	}
	for _, e := range found.Events {
		if scope == RequestPrivate && e.GroupID != "" {
			continue // said in a group, where others speak too: not for a private chat
		}
		if len(res.Events) < cfg.Events.AutoTopK {
			res.Events = append(res.Events, e)
		}
	}
	res.Warnings = append(res.Warnings, found.Warnings...)
	if cfg.Memos > 0 {
		ml, err := t.Memos(ctx, memos)
		if err != nil {
			return ContextResult{}, err
		}
		for _, m := range ml.Memos {
			res.Memos = append(res.Memos, ContextMemo{Content: m.Content, Time: m.Timestamp, SenderName: m.SenderName})
		}
	}
	ms, err := t.store.ListMemories(ctx, t.user, pins)
	if err != nil {
		return ContextResult{}, mapErr(err)
	}
	res.Memories = append(res.Memories, ms...)
	res.Block = renderContext(res, p, cfg)
	return res, nil
}

// brief returns the injectable part of a profile, nil when there is none.
func (t *Tools) brief(ctx context.Context, entityType, id string) (*ProfileBrief, error) {
	pr, err := t.store.GetProfile(ctx, t.user, entityType, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err)
	}
	tags := pr.Tags
	if tags == nil {
		tags = []string{}
	}
	return &ProfileBrief{EntityType: pr.EntityType, EntityID: pr.EntityID, Name: pr.Name, Summary: pr.Summary,
		Tags: tags, Revision: pr.Revision, UpdatedAt: pr.UpdatedAt}, nil
}

// renderContext writes the parts as a text block, one item per line, each
// line at most cfg.LineMax characters; empty parts are left out.
func renderContext(res ContextResult, p ContextParams, cfg ContextConfig) string {
	loc := cfg.Location
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	line := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		b.WriteString(cutRunes(s, cfg.LineMax))
		b.WriteByte('\n')
	}
	section := func(title string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(title)
		b.WriteByte('\n')
	}
	if len(res.Memories) > 0 {
		section("Pinned memories:")
		for _, m := range res.Memories {
			line("- " + m.Content)
		}
	}
	if pr := res.UserProfile; pr != nil && (pr.Summary != "" || len(pr.Tags) > 0) {
		section(fmt.Sprintf("About %s (%s):", cmpOr(pr.Name, cmpOr(p.SenderName, pr.EntityID)), pr.EntityID))
		line(profileLine(pr))
	}
	if pr := res.GroupProfile; pr != nil && (pr.Summary != "" || len(pr.Tags) > 0) {
		section(fmt.Sprintf("About the group %s (%s):", cmpOr(pr.Name, cmpOr(p.GroupName, pr.EntityID)), pr.EntityID))
		line(profileLine(pr))
	}
	if len(res.Events) > 0 {
		section("Relevant events:")
		for _, e := range res.Events {
			line(fmt.Sprintf("- [%s] %s", e.TimestampUTC.In(loc).Format("2006-01-02 15:04"), e.Content))
		}
	}
	if len(res.Memos) > 0 {
		section("Recent turns (memos):")
		for _, m := range res.Memos {
			line(fmt.Sprintf("- [%s] %s", m.Time.In(loc).Format("2006-01-02 15:04"), m.Content))
		}
	}
	return b.String()
}

func profileLine(pr *ProfileBrief) string {
	s := pr.Summary
	if len(pr.Tags) > 0 {
		if s != "" {
			s += " "
		}
		s += "Tags: " + strings.Join(pr.Tags, ", ")
	}
	return s
}

// cutRunes keeps the first max characters of s, marking a cut with "…".
func cutRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}
