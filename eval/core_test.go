package eval_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/eval"
	"github.com/recalld/recalld/skills"
	"github.com/recalld/recalld/storage/embed"
	"github.com/recalld/recalld/storage/embed/uselite"
)

// TestCoreSuite runs the project's own suite (zh + en, every category) with
// the hybrid ranking and the recall agent, and holds them to floors a
// regression would miss.
func TestCoreSuite(t *testing.T) { coreSuite(t, nil) }

// TestCoreSuiteUSE holds the default embedder of `recalld serve`, USE-Lite
// with hashing, to the same floors.
func TestCoreSuiteUSE(t *testing.T) {
	dir := "../models/use-lite"
	if _, err := os.Stat(filepath.Join(dir, "model.json")); errors.Is(err, os.ErrNotExist) {
		t.Skipf("model files not found in %s: run scripts/fetch-models.sh (make setup) to test USE-Lite", dir)
	}
	m, err := uselite.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := embed.NewComposite(uselite.NewEncoder(m, uselite.Options{}), embed.NewHashing(0), embed.DefaultMeaningWeight)
	if err != nil {
		t.Fatal(err)
	}
	coreSuite(t, c)
}

func coreSuite(t *testing.T, emb embed.Embedder) {
	skill, err := agent.LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	var floors []eval.Floor
	for _, f := range []string{"hybrid:recall@10>=0.9", "agent:recall@10>=0.75", "agent:mrr>=0.7"} {
		fl, err := eval.ParseFloor(f)
		if err != nil {
			t.Fatal(err)
		}
		floors = append(floors, fl)
	}
	rep, err := eval.Run(t.Context(), eval.Config{
		Suites:   []string{"testdata/core.json"},
		Runners:  []string{eval.RunnerHybrid},
		Extra:    []eval.Runner{eval.AgentRunner{Agent: agent.New(nil, skill)}},
		DataDir:  t.TempDir(),
		Floors:   floors,
		Embedder: emb,
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, rr := range rep.Suites[0].Runners {
		if n := rr.Overall[eval.MetricLeaks]; n != 0 {
			t.Errorf("%s leaked %v messages of other users", name, n)
		}
	}
}
