// Package profilemd writes a profile as Markdown with YAML front matter, the
// form in which `recalld profiles export` and `show` hand profiles to a
// person: the front matter holds the data, the body is for reading.
package profilemd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/recalld/recalld/storage"
)

// FrontMatter is the YAML front matter of an exported profile.
type FrontMatter struct {
	EntityType string    `yaml:"entity_type"`
	EntityID   string    `yaml:"entity_id"`
	Name       string    `yaml:"name,omitempty"`
	Tags       []string  `yaml:"tags"`
	Revision   int       `yaml:"revision"`
	UpdatedAt  time.Time `yaml:"updated_at"`
	Traits     []Trait   `yaml:"traits"`
}

// Trait is one trait of FrontMatter.
type Trait struct {
	Category  string    `yaml:"category"`
	Slot      string    `yaml:"slot"`
	Value     string    `yaml:"value"`
	Polarity  string    `yaml:"polarity,omitempty"`
	Lang      string    `yaml:"lang,omitempty"`
	FirstSeen time.Time `yaml:"first_seen"`
	LastSeen  time.Time `yaml:"last_seen"`
	Source    string    `yaml:"source_event_id,omitempty"`
}

// Encode renders p as Markdown with YAML front matter: the front
// matter holds the data, the body the summary and the traits for reading.
func Encode(p storage.Profile) ([]byte, error) {
	fm := FrontMatter{EntityType: p.EntityType, EntityID: p.EntityID, Name: p.Name, Tags: p.Tags,
		Revision: p.Revision, UpdatedAt: p.UpdatedAt, Traits: []Trait{}}
	for _, t := range p.Traits {
		fm.Traits = append(fm.Traits, Trait{Category: t.Category, Slot: t.Slot, Value: t.Value, Polarity: t.Polarity,
			Lang: t.Lang, FirstSeen: t.FirstSeen, LastSeen: t.LastSeen, Source: t.SourceEventID})
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	b.WriteString("---\n\n")
	title := p.Name
	if title == "" {
		title = p.EntityID
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	if p.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", p.Summary)
	}
	if len(p.Traits) > 0 {
		b.WriteString("## Traits\n\n")
		for _, t := range p.Traits {
			pol := ""
			if t.Polarity == storage.PolarityNegative {
				pol = " (not)"
			}
			fmt.Fprintf(&b, "- **%s**: %s%s (since %s)\n", t.Category, t.Value, pol, t.FirstSeen.Format(time.DateOnly))
		}
	}
	return b.Bytes(), nil
}

// FileName is the file name for an entity id: the id when it is safe, else
// the id with unsafe characters replaced and a short hash of it.
func FileName(id string) string {
	safe := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
	if safe == id && !strings.HasPrefix(id, ".") {
		return id + ".md"
	}
	sum := sha256.Sum256([]byte(id))
	return safe + "-" + hex.EncodeToString(sum[:4]) + ".md"
}
