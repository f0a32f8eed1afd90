package agent

import (
	"context"
	"testing"
	"time"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/skills"
)

// TestFinishAfterBudget: a brain that stops as the time budget runs out
// keeps what it found. The verifier's lookups run in their own window, not
// on the spent ctx, which would drop every citation as unknown.
func TestFinishAfterBudget(t *testing.T) {
	tools := mustTools(t, chat("c1", 0,
		[2]string{"Ann", "I am allergic to peanuts."},
		[2]string{"Bob", "Noted."},
	))
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	a := New(nil, sk)
	r, err := a.newRun(tools, Request{Question: "Any allergies?"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := r.lexical(t.Context(), queryapi.LexicalParams{QueryText: "allergic"})
	if err != nil {
		t.Fatal(err)
	}
	r.remember(page.Hits)
	d := draft{view: MemoryView{Constraints: []Item{{Statement: "allergic to peanuts", EvidenceIDs: []string{"c1-a"}, Status: StatusCurrent}}},
		answer: "Peanuts.", cited: []string{"c1-a"}, stopReason: StopBudget}

	spent, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Millisecond))
	defer cancel()
	resp, err := r.finish(spent, d, "offline")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Evidence) != 1 || resp.Evidence[0].MessageID != "c1-a" || len(resp.MemoryView.Constraints) != 1 ||
		resp.Limits.StopReason != StopBudget || len(resp.Limits.Notes) != 0 {
		t.Errorf("evidence %+v, view %+v, limits %+v", resp.Evidence, resp.MemoryView, resp.Limits)
	}
}
