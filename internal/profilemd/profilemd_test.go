package profilemd

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/recalld/recalld/storage"
)

func TestFileName(t *testing.T) {
	for _, tt := range []struct{ id, want string }{
		{"g1", "g1.md"},
		{"张三_2", "张三_2.md"},
		{"qq:1", "qq_1-"},       // unsafe: replaced, with a hash of the id
		{".hidden", ".hidden-"}, // a leading dot is not kept as is
		{"../up", ".._up-"},     // no path escapes
		{"qq:2", "qq_2-"},
	} {
		got := FileName(tt.id)
		if strings.HasSuffix(tt.want, "-") {
			if !strings.HasPrefix(got, tt.want) || !strings.HasSuffix(got, ".md") || len(got) != len(tt.want)+8+3 {
				t.Errorf("FileName(%q) = %q, want %s<8 hex>.md", tt.id, got, tt.want)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
	if FileName("qq:1") == FileName("qq_1") || FileName("a:b") == FileName("a/b") {
		t.Error("ids that differ share a file name")
	}
}

func TestEncode(t *testing.T) {
	seen := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	p := storage.Profile{EntityType: "user", EntityID: "qq:1", Revision: 2, UpdatedAt: seen,
		ProfileContent: storage.ProfileContent{Name: "张三", Summary: "住在北京。", Tags: []string{"friend"},
			Traits: []storage.Trait{{Category: "location", Slot: "home", Value: "北京", FirstSeen: seen, LastSeen: seen, SourceEventID: "e1"},
				{Category: "diet", Slot: "spicy", Value: "辣", Polarity: storage.PolarityNegative, FirstSeen: seen, LastSeen: seen}}}}
	b, err := Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	front, body, ok := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---\n")
	if !strings.HasPrefix(string(b), "---\n") || !ok {
		t.Fatalf("no front matter:\n%s", b)
	}
	var fm FrontMatter
	dec := yaml.NewDecoder(strings.NewReader(front))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		t.Fatal(err)
	}
	want := FrontMatter{EntityType: "user", EntityID: "qq:1", Name: "张三", Tags: []string{"friend"}, Revision: 2, UpdatedAt: seen,
		Traits: []Trait{{Category: "location", Slot: "home", Value: "北京", FirstSeen: seen, LastSeen: seen, Source: "e1"},
			{Category: "diet", Slot: "spicy", Value: "辣", Polarity: storage.PolarityNegative, FirstSeen: seen, LastSeen: seen}}}
	if diff := cmp.Diff(want, fm); diff != "" {
		t.Errorf("front matter (-want +got):\n%s", diff)
	}
	for _, part := range []string{"# 张三\n", "住在北京。\n", "- **location**: 北京 (since 2026-03-01)\n", "- **diet**: 辣 (not) (since 2026-03-01)\n"} {
		if !strings.Contains(body, part) {
			t.Errorf("body lacks %q:\n%s", part, body)
		}
	}
}
