package queryapi_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
)

func ev(id string, score float64, minute int) queryapi.Evidence {
	return queryapi.Evidence{MessageID: id, Score: score, CreatedAt: t0.Add(time.Duration(minute) * time.Minute)}
}

func TestRRF(t *testing.T) {
	if got, want := queryapi.RRF(queryapi.RRFK, 0), 1.0/61; got != want {
		t.Errorf("RRF(60, 0) = %v, want %v", got, want)
	}
	if got := queryapi.MinMax(3, 3, 3); got != 1 {
		t.Errorf("MinMax of an all-equal ranking = %v, want 1", got)
	}
}

func TestFusionMinMax(t *testing.T) {
	f := queryapi.NewFusion()
	// BM25-like scores 10, 6, 2 normalise to 1, .5, 0.
	f.Add([]queryapi.Evidence{ev("a", 10, 0), ev("b", 6, 1), ev("c", 2, 2)}, 0.8)
	// Cosines .9, .5 normalise to 1, 0; a ranking of one hit gives it the full weight.
	f.Add([]queryapi.Evidence{ev("c", 0.9, 2), ev("d", 0.5, 3)}, 0.2)
	f.Add([]queryapi.Evidence{ev("e", 3, 4)}, 0.1)
	got := f.Ranked()
	want := map[string]float64{"a": 0.8, "b": 0.4, "c": 0.2, "d": 0, "e": 0.1}
	if diff := cmp.Diff(want, queryapitest.Scores(got), cmp.Comparer(func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 })); diff != "" {
		t.Errorf("fused scores (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "e", "d"}, queryapitest.IDs(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestFusionTies(t *testing.T) {
	f := queryapi.NewFusion()
	f.Add([]queryapi.Evidence{ev("z", 1, 5), ev("y", 1, 5), ev("x", 1, 9)}, 1)
	// Equal scores: the earlier message first, then the smaller id.
	if diff := cmp.Diff([]string{"y", "z", "x"}, queryapitest.IDs(f.Ranked())); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestDialogue(t *testing.T) {
	u := func(id, name string) queryapi.Evidence {
		return queryapi.Evidence{Role: "user", SenderID: id, SenderName: name}
	}
	bot := queryapi.Evidence{Role: "assistant", SenderName: "Bot"}
	for _, tc := range []struct {
		name string
		user string
		hits [][]queryapi.Evidence
		want bool
	}{
		{"two people", "conv-26", [][]queryapi.Evidence{{u("Caroline", "Caroline")}, {u("Melanie", "Melanie"), u("Caroline", "Caroline")}}, true},
		{"one person", "qq:7", [][]queryapi.Evidence{{u("7", "Nina"), u("7", "Nina")}}, false},
		{"a bot chat", "qq:7", [][]queryapi.Evidence{{u("7", "Nina"), bot, u("8", "Tom")}}, false},
		// A group of colleagues with no bot reply among the hits is still
		// the owner's chat when the owner speaks in it.
		{"the owner's group", "wx:chen", [][]queryapi.Evidence{{u("lisa", "Lisa"), u("wang", "老王")}, {u("chen", "陈工")}}, false},
		{"the owner by full id", "qq:7", [][]queryapi.Evidence{{u("qq:8", "Tom"), u("qq:7", "Nina")}}, false},
		{"others talking, owner silent", "wx:chen", [][]queryapi.Evidence{{u("lisa", "Lisa"), u("wang", "老王")}}, true},
		{"no names", "qq:7", [][]queryapi.Evidence{{u("", ""), u("", "")}}, false},
		{"nothing", "qq:7", nil, false},
	} {
		if got := queryapi.Dialogue(tc.user, tc.hits...); got != tc.want {
			t.Errorf("%s: Dialogue = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestOwners: the senders of the user's turns in a private chat with the
// bot stand for the owner whatever their id; a private chat without the
// bot (named people's talk) and a group give none.
func TestOwners(t *testing.T) {
	ev := func(role, conv, group, sender string) queryapi.Evidence {
		return queryapi.Evidence{Role: role, ConversationID: conv, GroupID: group, SenderID: sender}
	}
	for _, tc := range []struct {
		name string
		user string
		hits []queryapi.Evidence
		want []string
	}{
		{"private chat with the bot", "sg_huimin",
			[]queryapi.Evidence{ev("user", "dm", "", "qq_881"), ev("assistant", "dm", "", "bot"), ev("user", "grp", "g1", "qq_593")},
			[]string{"sg_huimin", "qq_881"}},
		{"the bot's turn in another chat", "sg_huimin",
			[]queryapi.Evidence{ev("user", "dm", "", "qq_881"), ev("assistant", "dm2", "", "bot")}, []string{"sg_huimin"}},
		{"named people, no bot", "conv-26",
			[]queryapi.Evidence{ev("user", "s1", "", "Caroline"), ev("user", "s1", "", "Melanie")}, []string{"conv-26"}},
		{"a group with the bot", "qq:7",
			[]queryapi.Evidence{ev("user", "grp", "g1", "9"), ev("assistant", "grp", "g1", "bot")}, []string{"qq:7", "7"}},
		{"known already", "qq:7",
			[]queryapi.Evidence{ev("user", "dm", "", "7"), ev("assistant", "dm", "", "bot")}, []string{"qq:7", "7"}},
	} {
		if diff := cmp.Diff(tc.want, queryapi.Owners(tc.user, tc.hits)); diff != "" {
			t.Errorf("%s: Owners (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestOwnerSenders(t *testing.T) {
	for _, tc := range []struct {
		user string
		want []string
	}{
		{"qq:123", []string{"qq:123", "123"}},
		{"conv-26", []string{"conv-26"}},
		{"a:b:c", []string{"a:b:c", "c"}},
		{"trailing:", []string{"trailing:"}},
	} {
		if diff := cmp.Diff(tc.want, queryapi.OwnerSenders(tc.user)); diff != "" {
			t.Errorf("OwnerSenders(%q) (-want +got):\n%s", tc.user, diff)
		}
	}
}
