package popbench

import (
	"fmt"
	"io"
	"time"
)

// WriteMarkdown writes r as Markdown tables: the population, disk, rates
// and memory, then the latencies by operation for heavy and light users.
func (r Report) WriteMarkdown(w io.Writer) error {
	p := r.Population
	mb := func(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }
	rows := [][2]string{
		{"users", fmt.Sprintf("%d (%d heavy × %d messages; light: 1–%d, Zipf)", p.Users, p.HeavyUsers, p.HeavyMessages, p.LightMax)},
		{"messages", fmt.Sprintf("%d (heavy %d, light %d)", r.Messages, r.HeavyMessages, r.LightMessages)},
		{"embedder", r.Embedder},
		{"dictionary", map[bool]string{true: "CC-CEDICT (as serve)", false: "none"}[r.Dictionary]},
		{"wordnet", map[bool]string{true: "WordNet 3.1 nouns (as serve)", false: "none"}[r.WordNet]},
		{"word frequencies", map[bool]string{true: "jieba and SUBTLEX-US (as serve)", false: "none"}[r.WordFreq]},
		{"disk", fmt.Sprintf("%s, %.1f KB per user, %.2f KB per message", mb(r.DiskBytes), r.DiskPerUser()/1e3, float64(r.DiskBytes)/float64(max(r.Messages, 1))/1e3)},
		{"ack rate", fmt.Sprintf("%.0f msg/s", r.AckRate)},
		{"indexing rate", fmt.Sprintf("%.0f msg/s", r.IndexRate)},
		{"RSS peak, building", mb(r.BuildPeakRSS)},
		{"RSS peak, serving", mb(r.ServePeakRSS)},
		{"RSS after serving", fmt.Sprintf("%s (anonymous %s, file-backed %s; PSS %s)", mb(r.ServeRSS), mb(r.ServeAnon), mb(r.ServeFile), mb(r.ServePSS))},
	}
	if r.Reused {
		rows = append(rows, [2]string{"note", "store reused: rates and building peak are those of the run that built it"})
	}
	if _, err := fmt.Fprint(w, "| | |\n|---|---|\n"); err != nil {
		return err
	}
	for _, row := range rows {
		if _, err := fmt.Fprintf(w, "| %s | %s |\n", row[0], row[1]); err != nil {
			return err
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	if _, err := fmt.Fprint(w, "\n| operation | heavy p50 | heavy p95 | light p50 | light p95 |\n|---|---|---|---|---|\n"); err != nil {
		return err
	}
	for _, op := range Ops {
		cells := []string{}
		for _, class := range []string{"heavy", "light"} {
			if l, ok := r.Latency(class, op); ok {
				cells = append(cells, ms(l.P50), ms(l.P95))
			} else {
				cells = append(cells, "–", "–")
			}
		}
		name := op
		if op == "recall" {
			name = "/recall"
		}
		if _, err := fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", name, cells[0], cells[1], cells[2], cells[3]); err != nil {
			return err
		}
	}
	return nil
}
