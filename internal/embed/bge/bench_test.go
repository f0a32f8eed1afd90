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
	benchQuery(b, m, QueryPrefix+strings.Repeat("我最近每天都在练尤克里里", 3)[:30*3])
}

// benchQuery embeds text (prefix included) with m, reporting the p95.
func benchQuery(b *testing.B, m *Model, text string) {
	b.ReportAllocs()
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		m.EmbedIDs(m.Tokenizer().Encode(text))
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
	benchLines(b, mustEncoder(b).m, zhLines())
}

// zhLines are 64 Chinese chat lines of 22 characters.
func zhLines() []string {
	base := []rune("昨天晚上和朋友去吃了火锅，太辣了，今天胃不舒服。下周我们打算去杭州玩两天，顺便看看西湖")
	lines := make([]string, 64)
	for i := range lines {
		lines[i] = string(base[i%20 : i%20+22])
	}
	return lines
}

// benchLines embeds lines through an Encoder over m without its cache, so
// every batch is a forward pass per line, reporting lines/s.
func benchLines(b *testing.B, m *Model, lines []string) {
	e := NewEncoder(m, EncoderOptions{CacheSize: -1})
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

// e5Line is a typical English chat line, of 141 characters.
const e5Line = "Caroline: I went to the LGBTQ support group yesterday and it was so powerful, everyone shared their stories and I felt really accepted there."

// BenchmarkE5Query embeds one 30-character English query behind
// e5-small-v2's "query: " (tokenizer included), the latency a search pays,
// with its p95.
func BenchmarkE5Query(b *testing.B) {
	benchQuery(b, mustE5(b).m, "query: What instrument am I learning?") // 30 characters behind the prefix
}

// BenchmarkE5Line embeds one 140-character chat line behind "passage: " on
// the Model's threads.
func BenchmarkE5Line(b *testing.B) {
	m := mustE5(b).m
	text := "passage: " + e5Line
	b.ReportAllocs()
	for b.Loop() {
		m.EmbedIDs(m.Tokenizer().Encode(text))
	}
}

// BenchmarkE5EncoderLines embeds batches of 64 chat lines of about 140
// characters through the e5-small-v2 Encoder (without its cache), one text
// a worker per CPU: indexing throughput in lines/s.
func BenchmarkE5EncoderLines(b *testing.B) {
	words := strings.Fields(e5Line + " " + e5Line)
	lines := make([]string, 64)
	for i := range lines {
		lines[i] = strings.Join(words[i%20:i%20+24], " ")
	}
	benchLines(b, mustE5(b).m, lines)
}

// BenchmarkME5Query embeds one 30-character Chinese query behind
// multilingual-e5-small's "query: " (tokenizer included), with its p95.
func BenchmarkME5Query(b *testing.B) {
	benchQuery(b, mustME5(b).m, "query: "+strings.Repeat("我最近每天都在练尤克里里", 3)[:30*3])
}

// BenchmarkME5EncoderLines embeds batches of 64 Chinese chat lines of
// about 22 characters through the multilingual-e5-small Encoder (without
// its cache), one text a worker per CPU: indexing throughput in lines/s.
func BenchmarkME5EncoderLines(b *testing.B) {
	benchLines(b, mustME5(b).m, zhLines())
}
