package popbench_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/popbench"
)

// TestRunTiny runs the benchmark on a tiny population, whose heavy user is
// past the large-chunk tier (256 vectors), and checks every field of the
// report; a second run on the same directory reuses the store.
func TestRunTiny(t *testing.T) {
	dir := t.TempDir()
	cfg := popbench.Config{
		Population: popbench.Population{Users: 12, HeavyUsers: 1, HeavyMessages: 300, LightMax: 20, Seed: 3},
		Dir:        dir, Queries: 8,
	}
	rep, err := popbench.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reused {
		t.Error("first run reports a reused store")
	}
	if rep.HeavyMessages != 300 || rep.LightMessages < 11 || rep.LightMessages > 11*20 || rep.Messages != rep.HeavyMessages+rep.LightMessages {
		t.Errorf("messages: total %d, heavy %d, light %d", rep.Messages, rep.HeavyMessages, rep.LightMessages)
	}
	if rep.DiskBytes <= 0 || rep.DiskPerUser() != float64(rep.DiskBytes)/12 {
		t.Errorf("disk %d bytes, %.0f per user", rep.DiskBytes, rep.DiskPerUser())
	}
	if rep.AckRate <= 0 || rep.IndexRate <= 0 {
		t.Errorf("ack rate %.0f, index rate %.0f", rep.AckRate, rep.IndexRate)
	}
	if rep.BuildPeakRSS <= 0 || rep.ServePeakRSS <= 0 || rep.ServeRSS <= 0 || rep.ServeAnon <= 0 || rep.ServePSS <= 0 {
		t.Errorf("memory: build peak %d, serve peak %d, serving %d (anon %d), pss %d", rep.BuildPeakRSS, rep.ServePeakRSS, rep.ServeRSS, rep.ServeAnon, rep.ServePSS)
	}
	if len(rep.Latencies) != 2*len(popbench.Ops) {
		t.Errorf("%d latencies, want %d", len(rep.Latencies), 2*len(popbench.Ops))
	}
	for _, class := range []string{"heavy", "light"} {
		for _, op := range popbench.Ops {
			l, ok := rep.Latency(class, op)
			if !ok || l.N != 8 || l.P50 <= 0 || l.P95 < l.P50 || l.Mean <= 0 {
				t.Errorf("%s %s: %+v (measured: %v)", class, op, l, ok)
			}
		}
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| disk |", "per user", "| ack rate |", "| indexing rate |", "| RSS peak, serving |", "| /recall |", "| semantic_search_role |", "| neighbors |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}

	again, err := popbench.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Reused || again.AckRate != rep.AckRate || again.Messages != rep.Messages {
		t.Errorf("second run: reused %v, ack rate %.0f (first %.0f), messages %d", again.Reused, again.AckRate, rep.AckRate, again.Messages)
	}
}
