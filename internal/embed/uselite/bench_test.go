package uselite

import (
	"fmt"
	"testing"
)

// benchTexts returns n chat turns of about chars characters.
func benchTexts(n, chars int) []string {
	base := "Caroline said the support group met on Tuesday and it felt really good to be heard by people who understood; she plans to go again next week with her friend Melanie from work. "
	out := make([]string, n)
	for i := range out {
		s := fmt.Sprintf("%d: %s", i, base[i%40:])
		out[i] = s[:chars]
	}
	return out
}

// BenchmarkEmbed measures throughput of batches on all CPUs (cache off):
// texts/s and allocations per text, for short and typical chat turns.
func BenchmarkEmbed(b *testing.B) {
	m := mustModel(b)
	for _, chars := range []int{30, 140} {
		b.Run(fmt.Sprintf("chars=%d", chars), func(b *testing.B) {
			enc := NewEncoder(m, Options{CacheSize: -1})
			texts := benchTexts(64, chars)
			if _, err := enc.Embed(b.Context(), texts); err != nil { // warm the worker buffers
				b.Fatal(err)
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if _, err := enc.Embed(b.Context(), texts); err != nil {
					b.Fatal(err)
				}
				n += len(texts)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
			b.ReportMetric(float64(testing.AllocsPerRun(1, func() { _, _ = enc.Embed(b.Context(), texts) }))/float64(len(texts)), "allocs/text")
		})
	}
}

// BenchmarkEmbedOne measures the latency of one text on one core (a query).
func BenchmarkEmbedOne(b *testing.B) {
	m := mustModel(b)
	for _, chars := range []int{30, 140} {
		b.Run(fmt.Sprintf("chars=%d", chars), func(b *testing.B) {
			enc := NewEncoder(m, Options{CacheSize: -1})
			text := benchTexts(1, chars)[0]
			enc.EmbedOne(text)
			b.ReportAllocs()
			for b.Loop() {
				enc.EmbedOne(text)
			}
		})
	}
}
