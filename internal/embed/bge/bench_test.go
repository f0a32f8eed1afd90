package bge

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkQuery embeds one 30-character Chinese query with BAAI's prefix
// (tokenizer included), the latency a search pays, with its p95.
func BenchmarkQuery(b *testing.B) {
	m := mustModel(b)
	q := QueryPrefix + strings.Repeat("我最近每天都在练尤克里里", 3)[:30*3]
	b.ReportAllocs()
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		m.EmbedIDs(m.Tokenizer().Encode(q))
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkChatLine embeds one typical chat line (about 20 characters)
// without prefix, the unit of indexing throughput.
func BenchmarkChatLine(b *testing.B) {
	m := mustModel(b)
	line := "昨天晚上和朋友去吃了火锅，太辣了，今天胃不舒服"
	b.ReportAllocs()
	for b.Loop() {
		m.EmbedIDs(m.Tokenizer().Encode(line))
	}
}

// BenchmarkEncoderLines embeds batches of 64 chat lines through the
// Encoder (without its cache), one text a worker per CPU: indexing
// throughput in lines/s.
func BenchmarkEncoderLines(b *testing.B) {
	e := NewEncoder(mustEncoder(b).m, EncoderOptions{CacheSize: -1}) // every batch a forward pass
	base := []rune("昨天晚上和朋友去吃了火锅，太辣了，今天胃不舒服。下周我们打算去杭州玩两天，顺便看看西湖")
	lines := make([]string, 64)
	for i := range lines {
		lines[i] = string(base[i%20 : i%20+22])
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := e.Embed(b.Context(), lines); err != nil {
			b.Fatal(err)
		}
		n += len(lines)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "lines/s")
}
