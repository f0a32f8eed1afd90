package bge

import (
	"strings"
	"testing"
)

// BenchmarkQuery embeds one 30-character Chinese query with BAAI's prefix
// (tokenizer included), the latency a search pays.
func BenchmarkQuery(b *testing.B) {
	m := mustModel(b)
	q := QueryPrefix + strings.Repeat("我最近每天都在练尤克里里", 3)[:30*3]
	b.ReportAllocs()
	for b.Loop() {
		m.EmbedIDs(m.Tokenizer().Encode(q))
	}
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
