package ingest

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/recalld/recalld/storage"
)

// maxTraits bounds a profile: past it, the multi-value traits seen longest
// ago go first.
const maxTraits = 200

// maxTags and maxMembers bound the tags and the members a summary names.
const (
	maxTags    = 16
	maxMembers = 10
)

// SourcedFact is a fact with the event that stated it.
type SourcedFact struct {
	Fact
	EventID string
	At      time.Time
}

// ProfileMerges returns the profile changes a turn's events make: the
// sender's user profile gets the facts the events state about the sender
// (and the sender's current name), and in a group the group's profile gets
// its name, the topics of the events and the sender as a member. Any
// historian can return them in its Result; the worker applies them in the
// transaction that completes the job, so each is applied once. kinds is
// passed to ExtractFacts.
func ProfileMerges(t TurnEnd, evs []storage.Event, kinds *Kinds) []storage.ProfileMerge {
	if len(evs) == 0 {
		return nil
	}
	var out []storage.ProfileMerge
	if t.SenderID != "" {
		subj := Subject{ID: t.SenderID, Name: t.SenderName}
		var fs []SourcedFact
		for _, e := range evs {
			for _, f := range ExtractFacts(e.Content, subj, kinds) {
				fs = append(fs, SourcedFact{Fact: f, EventID: e.ID, At: e.Timestamp})
			}
		}
		name := t.SenderName
		out = append(out, storage.ProfileMerge{EntityType: storage.EntityUser, EntityID: t.SenderID,
			Apply: func(p storage.Profile) storage.Profile {
				if p.Revision == 0 && len(fs) == 0 {
					return p // nothing known yet: no profile
				}
				return MergeFacts(p, name, fs)
			}})
	}
	if t.GroupID != "" {
		var fs []SourcedFact
		for _, e := range evs {
			for _, f := range GroupTopics(e.Content) {
				fs = append(fs, SourcedFact{Fact: f, EventID: e.ID, At: e.Timestamp})
			}
		}
		if t.SenderID != "" {
			last := evs[len(evs)-1]
			fs = append(fs, SourcedFact{Fact: Fact{Category: "member", Slot: t.SenderID, Value: cmp.Or(t.SenderName, t.SenderID)},
				EventID: last.ID, At: last.Timestamp})
		}
		name := t.GroupName
		out = append(out, storage.ProfileMerge{EntityType: storage.EntityGroup, EntityID: t.GroupID,
			Apply: func(p storage.Profile) storage.Profile { return MergeFacts(p, name, fs) }})
	}
	return out
}

// MergeFacts returns p with fs merged in, oldest first: a fact on a new slot
// adds a trait; on an existing slot a newer fact replaces the trait's value
// (a move, a like turned dislike) or, with the same value, extends when it
// was last seen; an older fact never overrides a newer one. name, when not
// empty, becomes the profile's name. The tags and the summary are made
// again from the traits. Merging the same facts twice changes nothing.
func MergeFacts(p storage.Profile, name string, fs []SourcedFact) storage.Profile {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b SourcedFact) int { return a.At.Compare(b.At) })
	traits := slices.Clone(p.Traits)
	for _, f := range fs {
		at := f.At.UTC()
		i := slices.IndexFunc(traits, func(t storage.Trait) bool { return t.Category == f.Category && t.Slot == f.Slot })
		if i < 0 {
			traits = append(traits, storage.Trait{Category: f.Category, Slot: f.Slot, Value: f.Value, Polarity: f.Polarity,
				Lang: f.Lang, FirstSeen: at, LastSeen: at, SourceEventID: f.EventID})
			continue
		}
		t := &traits[i]
		same := t.Value == f.Value && t.Polarity == f.Polarity
		switch {
		case same && at.Before(t.FirstSeen):
			t.FirstSeen = at
		case same && at.After(t.LastSeen):
			t.LastSeen, t.SourceEventID = at, f.EventID
		case !same && !at.Before(t.LastSeen):
			*t = storage.Trait{Category: f.Category, Slot: f.Slot, Value: f.Value, Polarity: f.Polarity, Lang: f.Lang,
				FirstSeen: at, LastSeen: at, SourceEventID: f.EventID}
		}
	}
	if len(traits) > maxTraits {
		// Drop the multi-value traits seen longest ago.
		byAge := slices.Clone(traits)
		slices.SortStableFunc(byAge, func(a, b storage.Trait) int { return a.LastSeen.Compare(b.LastSeen) })
		drop := map[[2]string]bool{}
		for _, t := range byAge {
			if len(traits)-len(drop) <= maxTraits {
				break
			}
			if c := facts.cats[t.Category]; c == nil || !c.single {
				drop[[2]string{t.Category, t.Slot}] = true
			}
		}
		traits = slices.DeleteFunc(traits, func(t storage.Trait) bool { return drop[[2]string{t.Category, t.Slot}] })
	}
	slices.SortStableFunc(traits, func(a, b storage.Trait) int {
		return cmp.Or(cmp.Compare(catOrder(a.Category), catOrder(b.Category)), a.FirstSeen.Compare(b.FirstSeen),
			strings.Compare(a.Slot, b.Slot))
	})
	if name != "" {
		p.Name = name
	}
	p.Traits = traits
	p.Tags = tags(traits)
	p.Summary = Summarize(cmp.Or(p.Name, p.EntityID), traits)
	return p
}

func catOrder(name string) int {
	if c, ok := facts.cats[name]; ok {
		return c.order
	}
	return len(facts.cats)
}

// tags are the positive values of the tagged categories, the most recently
// seen first.
func tags(traits []storage.Trait) []string {
	ts := slices.Clone(traits)
	slices.SortStableFunc(ts, func(a, b storage.Trait) int { return b.LastSeen.Compare(a.LastSeen) })
	out := []string{}
	for _, t := range ts {
		c := facts.cats[t.Category]
		if c == nil || !c.tag || t.Polarity == storage.PolarityNegative || slices.Contains(out, t.Value) {
			continue
		}
		out = append(out, t.Value)
		if len(out) == maxTags {
			break
		}
	}
	return out
}

// Summarize writes a profile's summary from its traits: one sentence per
// language the facts were stated in (the most used first), naming the
// entity, with the values of a category and polarity together.
func Summarize(name string, traits []storage.Trait) string {
	if len(traits) == 0 {
		return ""
	}
	count := map[string]int{}
	for _, t := range traits {
		if t.Lang != "" {
			count[t.Lang]++
		}
	}
	order := slices.Clone(langs)
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	major := order[0]
	var sentences []string
	for _, lang := range order {
		type key struct {
			cat      string
			negative bool
		}
		var keys []key
		values := map[key][]string{}
		for _, t := range traits {
			l := cmp.Or(t.Lang, major)
			if l != lang {
				continue
			}
			k := key{t.Category, t.Polarity == storage.PolarityNegative}
			if _, ok := values[k]; !ok {
				keys = append(keys, k)
			}
			if t.Category == "member" && len(values[k]) >= maxMembers {
				continue
			}
			values[k] = append(values[k], t.Value)
		}
		if len(keys) == 0 {
			continue
		}
		var parts []string
		for _, k := range keys {
			parts = append(parts, phrase(k.cat, k.negative, lang, values[k]))
		}
		if lang == "zh" {
			sentences = append(sentences, name+"："+strings.Join(parts, "；")+"。")
		} else {
			sentences = append(sentences, name+": "+strings.Join(parts, "; ")+".")
		}
	}
	return strings.Join(sentences, " ")
}

// phrase renders one category's values with its template in lang.
func phrase(category string, negative bool, lang string, values []string) string {
	tmpl := "{v}"
	if c := facts.cats[category]; c != nil {
		m := c.summary
		if negative {
			m = c.negative
			if m == nil {
				m = facts.cats["hobby"].negative
			}
		}
		tmpl = cmp.Or(m[lang], m["zh"], m["en"], tmpl)
	}
	var v string
	if lang == "zh" {
		v = strings.Join(values, "、")
	} else {
		switch len(values) {
		case 1:
			v = values[0]
		default:
			v = strings.Join(values[:len(values)-1], ", ") + " and " + values[len(values)-1]
		}
	}
	return strings.ReplaceAll(tmpl, "{v}", v)
}
