package ingest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/recalld/recalld/ingest"
)

func TestZZProbe(t *testing.T) {
	texts := os.Getenv("PROBE")
	if texts == "" {
		t.Skip()
	}
	h := ingest.NewHistorian(ingest.HistorianConfig{Kinds: testKinds(t)})
	for _, text := range strings.Split(texts, "\n") {
		subj := ingest.Subject{ID: "qq:10001", Name: "张三"}
		if !strings.ContainsFunc(text, func(r rune) bool { return r > 0x2e80 }) {
			subj = ingest.Subject{ID: "qq:20002", Name: "Alice"}
		}
		var got []string
		for _, tr := range profileTraits(t, h, text, subj) {
			got = append(got, tr.Category+":"+tr.Value+"/"+tr.Polarity)
		}
		t.Logf("%s => %v", text, got)
	}
}
