package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/recalld/recalld/queryapi"
)

// Skill is a loaded retrieval skill: the SKILL.md instructions (the LLM
// brain's system prompt) and the parameters the offline brain follows.
type Skill struct {
	Name        string
	Description string
	// Body is SKILL.md after the front matter.
	Body   string
	Params Params
}

// Params are a skill's tunable defaults (params.yaml).
type Params struct {
	Version     int                `yaml:"version"`
	Limits      RunLimits          `yaml:"limits"`
	Stop        StopRules          `yaml:"stop"`
	Weights     queryapi.Weights   `yaml:"weights"`
	TimeSignals []TimeSignal       `yaml:"time_signals"`
	Intents     map[string]Intent  `yaml:"intents"`
	Topics      map[string]Lexicon `yaml:"topics"`
	Markers     map[string]Lexicon `yaml:"markers"`
	// Relations are the user's people, one group of words each (孩子,
	// 女儿, kid, daughter): a question about "my brother" is answered only
	// by a message that mentions someone of that group.
	Relations map[string]Lexicon `yaml:"relations"`
	// KinNames are the names one person of the family goes by, one group
	// each (妈妈, 老妈, mum): a group member the chat shows by one of them
	// is named by a question that says another ("what did mum say" of 妈
	// 妈's message).
	KinNames map[string]Lexicon `yaml:"kin_names"`
	// Kinds are kinds of answer a question may ask for by name (什么颜色,
	// what color): a message that names none of the kind's words does not
	// answer it.
	Kinds map[string]Kind `yaml:"kinds"`
}

// Kind is a kind of answer: the words of a question that ask for it, and
// the words that name one.
type Kind struct {
	Ask     Lexicon `yaml:"ask"`
	Lexicon `yaml:",inline"`
	// Places: the places the bilingual dictionary knows name one too (深圳,
	// 奈良, Bali); without a dictionary a kind with no words of its own
	// sets nothing aside.
	Places bool `yaml:"places"`
	// Titles: a title in book-title marks or quotes names one too
	// (《流浪地球3》, "Dune").
	Titles bool `yaml:"titles"`
}

// RunLimits bound one recall.
type RunLimits struct {
	MaxRounds    int `yaml:"max_rounds"`
	BudgetMS     int `yaml:"budget_ms"`
	MaxToolCalls int `yaml:"max_tool_calls"`
	Candidates   int `yaml:"candidates"`
	MaxEvidence  int `yaml:"max_evidence"`
	MaxItems     int `yaml:"max_items"`
	Neighbors    int `yaml:"neighbors"`
	MaxAnchors   int `yaml:"max_anchors"`
	// Replies is how many hits that do not bear out the question by their
	// own words have the turn before them read (offlineRun.replies).
	Replies       int `yaml:"replies"`
	EvidenceChars int `yaml:"evidence_chars"`
}

// StopRules decide relevance and when searching stops.
type StopRules struct {
	Relevance float64 `yaml:"relevance"`
	// MinOverlap is the share of the question's key terms a message needs
	// to be a candidate for citing.
	MinOverlap float64 `yaml:"min_overlap"`
	// MinSupport is the absolute support (relevance.support: the
	// idf-weighted share of the question's key terms) one of the kept
	// messages needs for the question to be answered at all; else it
	// answers no_evidence. Zero turns the check off.
	MinSupport float64 `yaml:"min_support"`
	// MinSupportZH replaces MinSupport for a question that is mostly
	// Chinese: its evidence counts bigrams and single characters, so the
	// same share means less than of English words.
	MinSupportZH float64 `yaml:"min_support_zh"`
	// MinSimilarity, when positive, also gives min_support to a message
	// whose raw cosine similarity to the question reaches it. Fit it to
	// the embedder: the built-in ones do not separate answers from
	// look-alikes by cosine.
	MinSimilarity float64 `yaml:"min_similarity"`
	// MinSimilarityZH replaces MinSimilarity for a question that is mostly
	// Chinese: the composite reads it without its English model, so its
	// cosines run lower.
	MinSimilarityZH float64 `yaml:"min_similarity_zh"`
	MinNew          int     `yaml:"min_new"`
	Enough          int     `yaml:"enough"`
	CiteRatio       float64 `yaml:"cite_ratio"`
	// ThreadCiteRatio replaces CiteRatio for questions about a thread of
	// events (decisions, progress), whose evidence is spread out.
	ThreadCiteRatio float64 `yaml:"thread_cite_ratio"`
	// CiteMax caps the messages the offline synthesizer cites (at most
	// limits.max_evidence, which caps every brain).
	CiteMax int `yaml:"cite_max"`
	// AggregateCiteMax replaces CiteMax for a question that asks for
	// several things (markers.aggregate): a list, a count, a comparison.
	// Zero keeps CiteMax.
	AggregateCiteMax int `yaml:"aggregate_cite_max"`
	// ThreadCiteMax replaces it for a question about a matter's course
	// (markers.thread), whose steps are each a message of their own. Zero
	// keeps AggregateCiteMax.
	ThreadCiteMax int `yaml:"thread_cite_max"`
	// UnsupportedCiteMax lets the offline synthesizer cite at most this
	// many messages more than bear out the question in absolute terms
	// (support at least min_support) among the best limits.max_evidence
	// kept: an answer few messages bear out is unsure, and cites less. It
	// applies to a question with content terms; limits.max_evidence
	// switches it off.
	UnsupportedCiteMax int `yaml:"unsupported_cite_max"`
	// QuestionWeight multiplies the rank of a message that is a question:
	// it is no statement of fact, but it often names what was talked about.
	QuestionWeight float64 `yaml:"question_weight"`
	// ToldRatio: in a dialogue of named people, a question about one of
	// them is answered no_evidence when the other speaker's first-person
	// statement bears it out and nothing the named one said bears it out
	// by min_support or by this share of that statement's support. Zero
	// keeps min_support alone.
	ToldRatio float64 `yaml:"told_ratio"`
	// GlossWeight adds this much, times a message's similarity to a
	// Chinese question's English senses (as a share of the best), to the
	// rank of a supported message written without Chinese. Zero does not
	// search the senses' meaning.
	GlossWeight float64 `yaml:"gloss_weight"`
	// GlossSimilarity: the user's message without Chinese that is the best
	// hit of that search, at this raw cosine or more, bears the question
	// out (support min_support_zh). Zero switches it off.
	GlossSimilarity float64 `yaml:"gloss_similarity"`
	// SittingMinutes: a statement made within this many minutes of an
	// earlier one of the same speaker, in the same conversation, goes on
	// with it ("搬家了 搬到汉阳" then "汉阳单价低点 但是不用天天过江"): it
	// supersedes the earlier one only by revising or correcting it in so
	// many words (markers revision, correction), not by a negation or a
	// word of change alone. Zero lets any later statement supersede.
	SittingMinutes int `yaml:"sitting_minutes"`
}

// TimeSignal maps words of a question to a window of Days back from now.
type TimeSignal struct {
	Name string `yaml:"name"`
	Days int    `yaml:"days"`
	// Loose signals (最近, recently) narrow the first searches only: a
	// question that is no yes/no question searches all time when nothing
	// in the window bears it out.
	Loose   bool `yaml:"loose"`
	Lexicon `yaml:",inline"`
}

// Intent is a kind of question: the role whose words count and its words.
type Intent struct {
	Role    string `yaml:"role"`
	Lexicon `yaml:",inline"`
}

// Lexicon is a bilingual word list.
type Lexicon struct {
	ZH []string `yaml:"zh"`
	EN []string `yaml:"en"`
	// Generic are the words of a topic that name the topic as a whole
	// (宠物, pet) rather than one of its members (猫, dog); they also
	// belong in ZH or EN. Only topics use them (relevance.support).
	Generic []string `yaml:"generic"`
	// Cues are words that reveal a topic in a question without being a
	// thing of it (周末 for a pastime: "我周末一般干啥"): they find the
	// topic, but a message holding one neither shares nor bears it out.
	// Only topics use them (observe).
	Cues []string `yaml:"cues"`
}

// Words returns the Chinese and English words together.
func (l Lexicon) Words() []string { return append(append([]string(nil), l.ZH...), l.EN...) }

// withForms returns l with each Chinese word followed by the other forms
// forms gives it (traditional characters: 现在 → 現在), without repeats.
func (l Lexicon) withForms(forms func(string) []string) Lexicon {
	grow := func(words []string) []string {
		if words == nil {
			return nil
		}
		out := make([]string, 0, len(words))
		for _, w := range words {
			for _, f := range append([]string{w}, forms(w)...) {
				if !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
		return out
	}
	l.ZH, l.Generic, l.Cues = grow(l.ZH), grow(l.Generic), grow(l.Cues)
	return l
}

// withForms returns a copy of p whose Chinese words also come in the
// other forms forms gives: the skill's words are written in simplified
// characters, and users in Taiwan and Hong Kong write 現在, 喜歡, 過敏.
// p itself is not changed.
func (p Params) withForms(forms func(string) []string) Params {
	lexicons := func(m map[string]Lexicon) map[string]Lexicon {
		out := make(map[string]Lexicon, len(m))
		for k, l := range m {
			out[k] = l.withForms(forms)
		}
		return out
	}
	p.TimeSignals = slices.Clone(p.TimeSignals)
	for i := range p.TimeSignals {
		p.TimeSignals[i].Lexicon = p.TimeSignals[i].Lexicon.withForms(forms)
	}
	intents := make(map[string]Intent, len(p.Intents))
	for k, in := range p.Intents {
		in.Lexicon = in.Lexicon.withForms(forms)
		intents[k] = in
	}
	p.Intents = intents
	p.Topics, p.Markers, p.Relations, p.KinNames = lexicons(p.Topics), lexicons(p.Markers), lexicons(p.Relations), lexicons(p.KinNames)
	kinds := make(map[string]Kind, len(p.Kinds))
	for k, kind := range p.Kinds {
		kind.Ask, kind.Lexicon = kind.Ask.withForms(forms), kind.Lexicon.withForms(forms)
		kinds[k] = kind
	}
	p.Kinds = kinds
	return p
}

// intentOrder is the order in which intents are tried and reported.
var intentOrder = []string{"constraint", "preference", "background", "promise", "schedule", "event"}

type frontMatter struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	License     string            `yaml:"license"`
	Metadata    map[string]string `yaml:"metadata"`
}

var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ErrInvalidSkill reports a skill folder that does not follow the format.
var ErrInvalidSkill = errors.New("agent: invalid skill")

// LoadSkill reads and validates the skill in folder dir of fsys: SKILL.md
// with front matter (name matching the folder, description) and the
// parameters file the front matter names (default params.yaml).
func LoadSkill(fsys fs.FS, dir string) (*Skill, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %s: %s", ErrInvalidSkill, dir, fmt.Sprintf(format, args...))
	}
	raw, err := fs.ReadFile(fsys, path.Join(dir, "SKILL.md"))
	if err != nil {
		return nil, bad("read SKILL.md: %v", err)
	}
	fmText, body, ok := splitFrontMatter(raw)
	if !ok {
		return nil, bad("SKILL.md must start with YAML front matter between --- lines")
	}
	var fm frontMatter
	dec := yaml.NewDecoder(bytes.NewReader(fmText))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		return nil, bad("front matter: %v", err)
	}
	switch {
	case !skillName.MatchString(fm.Name) || len(fm.Name) > 64:
		return nil, bad("name %q must be lowercase letters, digits and hyphens (≤ 64)", fm.Name)
	case fm.Name != path.Base(dir):
		return nil, bad("name %q must equal the folder name %q", fm.Name, path.Base(dir))
	case strings.TrimSpace(fm.Description) == "" || len(fm.Description) > 1024:
		return nil, bad("description is required (≤ 1024 characters)")
	case strings.TrimSpace(string(body)) == "":
		return nil, bad("SKILL.md has no instructions after the front matter")
	}
	paramsFile := "params.yaml"
	if p := fm.Metadata["params"]; p != "" {
		paramsFile = p
	}
	praw, err := fs.ReadFile(fsys, path.Join(dir, paramsFile))
	if err != nil {
		return nil, bad("read %s: %v", paramsFile, err)
	}
	var p Params
	pdec := yaml.NewDecoder(bytes.NewReader(praw))
	pdec.KnownFields(true)
	if err := pdec.Decode(&p); err != nil {
		return nil, bad("%s: %v", paramsFile, err)
	}
	if err := p.validate(); err != nil {
		return nil, bad("%s: %v", paramsFile, err)
	}
	return &Skill{Name: fm.Name, Description: strings.TrimSpace(fm.Description), Body: strings.TrimSpace(string(body)), Params: p}, nil
}

func splitFrontMatter(b []byte) (fm, body []byte, ok bool) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	rest, found := bytes.CutPrefix(b, []byte("---\n"))
	if !found {
		return nil, nil, false
	}
	i := bytes.Index(rest, []byte("\n---\n"))
	if i < 0 {
		return nil, nil, false
	}
	return rest[:i], rest[i+5:], true
}

func (p Params) validate() error {
	var errs []error
	l := p.Limits
	for name, v := range map[string]int{
		"limits.max_rounds": l.MaxRounds, "limits.budget_ms": l.BudgetMS, "limits.max_tool_calls": l.MaxToolCalls,
		"limits.candidates": l.Candidates, "limits.max_evidence": l.MaxEvidence, "limits.max_items": l.MaxItems,
		"limits.max_anchors": l.MaxAnchors, "limits.evidence_chars": l.EvidenceChars,
	} {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive", name))
		}
	}
	if l.Candidates > 100 {
		errs = append(errs, errors.New("limits.candidates must be at most 100"))
	}
	if l.Replies < 0 || l.Replies > 20 {
		errs = append(errs, errors.New("limits.replies must be between 0 and 20"))
	}
	if l.Neighbors < 0 || l.Neighbors > 50 {
		errs = append(errs, errors.New("limits.neighbors must be between 0 and 50"))
	}
	if p.Stop.CiteRatio < 0 || p.Stop.CiteRatio > 1 || p.Stop.ThreadCiteRatio < 0 || p.Stop.ThreadCiteRatio > 1 {
		errs = append(errs, errors.New("stop.cite_ratio and stop.thread_cite_ratio must be in [0, 1]"))
	}
	if p.Stop.CiteMax <= 0 || p.Stop.CiteMax > l.MaxEvidence {
		errs = append(errs, errors.New("stop.cite_max must be between 1 and limits.max_evidence"))
	}
	if p.Stop.AggregateCiteMax < 0 || p.Stop.AggregateCiteMax > l.MaxEvidence {
		errs = append(errs, errors.New("stop.aggregate_cite_max must be between 0 and limits.max_evidence"))
	}
	if p.Stop.ThreadCiteMax < 0 || p.Stop.ThreadCiteMax > l.MaxEvidence {
		errs = append(errs, errors.New("stop.thread_cite_max must be between 0 and limits.max_evidence"))
	}
	if p.Stop.UnsupportedCiteMax < 0 || p.Stop.UnsupportedCiteMax > l.MaxEvidence {
		errs = append(errs, errors.New("stop.unsupported_cite_max must be between 0 and limits.max_evidence"))
	}
	if p.Stop.QuestionWeight < 0 || p.Stop.QuestionWeight > 1 {
		errs = append(errs, errors.New("stop.question_weight must be in [0, 1]"))
	}
	if p.Stop.GlossSimilarity < 0 || p.Stop.GlossSimilarity > 1 {
		errs = append(errs, errors.New("stop.gloss_similarity must be in [0, 1]"))
	}
	if p.Stop.GlossWeight < 0 || p.Stop.GlossWeight > 4 {
		errs = append(errs, errors.New("stop.gloss_weight must be in [0, 4]"))
	}
	if p.Stop.ToldRatio < 0 || p.Stop.ToldRatio > 1 {
		errs = append(errs, errors.New("stop.told_ratio must be in [0, 1]"))
	}
	if p.Stop.Relevance <= 0 || p.Stop.Relevance > 1 || p.Stop.MinOverlap < 0 || p.Stop.MinOverlap > 1 ||
		p.Stop.MinSupport < 0 || p.Stop.MinSupport > 1 || p.Stop.MinSupportZH < 0 || p.Stop.MinSupportZH > 1 || p.Stop.MinSimilarity < 0 || p.Stop.MinSimilarity > 1 || p.Stop.MinSimilarityZH < 0 || p.Stop.MinSimilarityZH > 1 {
		errs = append(errs, errors.New("stop.relevance must be in (0, 1], stop.min_overlap, stop.min_support(_zh) and stop.min_similarity(_zh) in [0, 1]"))
	}
	if p.Weights.Contextual < 0 || p.Weights.Lexical < 0 || p.Weights.Semantic < 0 || p.Weights.Neighbor < 0 ||
		p.Weights.Speaker < 0 || p.Weights.Date < 0 || p.Weights.Paraphrase < 0 || p.Weights.Answer < 0 ||
		p.Weights.Contextual+p.Weights.Lexical+p.Weights.Semantic == 0 {
		errs = append(errs, errors.New("weights must be non-negative and not all zero"))
	}
	for i, ts := range p.TimeSignals {
		if ts.Name == "" || ts.Days <= 0 || len(ts.Words()) == 0 {
			errs = append(errs, fmt.Errorf("time_signals[%d] needs a name, positive days and words", i))
		}
	}
	if len(p.Intents) == 0 {
		errs = append(errs, errors.New("intents is empty"))
	}
	for name, in := range p.Intents {
		if in.Role != "user" && in.Role != "assistant" && in.Role != "any" {
			errs = append(errs, fmt.Errorf("intents.%s.role %q: want user, assistant or any", name, in.Role))
		}
	}
	for name, k := range p.Kinds {
		if len(k.Ask.Words()) == 0 || len(k.Words()) == 0 && !k.Places && !k.Titles {
			errs = append(errs, fmt.Errorf("kinds.%s needs ask words and words that name one", name))
		}
	}
	return errors.Join(errs...)
}
