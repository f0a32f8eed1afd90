package queryapitest

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// LoopP95 runs fn(i) for b.Loop's iterations and reports its p95 latency
// in milliseconds ("p95-ms") besides ns/op and the allocations.
func LoopP95(b *testing.B, fn func(i int) error) {
	b.Helper()
	var d []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		if err := fn(i); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
		i++
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
}

// ReportRSS reports the process's resident memory: anonymous (Go heap,
// SQLite caches), file-backed (mmapped Bleve segments and recalld.db) and
// its peak, in MB, on Linux (nothing elsewhere).
func ReportRSS(b *testing.B) {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(st), "\n") {
		if f := strings.Fields(l); len(f) == 3 && (f[0] == "RssAnon:" || f[0] == "RssFile:" || f[0] == "VmHWM:") {
			if kb, err := strconv.Atoi(f[1]); err == nil {
				b.ReportMetric(float64(kb)/1024, strings.TrimSuffix(f[0], ":")+"-MB")
			}
		}
	}
}
