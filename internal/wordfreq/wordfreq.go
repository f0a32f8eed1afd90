// Package wordfreq knows how common a word is in everyday Chinese and
// English: jieba's dictionary (counts over 60 million words of Chinese)
// and SUBTLEX-US (counts over 51 million words of film and TV subtitles),
// fetched by scripts/fetch-wordfreq.sh. Recall reads it to tell a word
// that ties messages to one matter (装修, glaze) from one any message may
// hold (开始, thing), which a user's few dozen messages cannot tell.
package wordfreq

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// minPerMillion is the rarest a word is kept at: rarer words are read as
// unknown, which PerMillion reports as 0 (saves some 300,000 entries).
const minPerMillion = 1

// Freq is how often words occur per million words of their language.
type Freq struct {
	perMillion map[string]float32
}

// Load reads dir/zh/jieba.dict.utf8 and dir/en/index.json.
func Load(dir string) (*Freq, error) {
	zh, err := os.Open(filepath.Join(dir, "zh", "jieba.dict.utf8"))
	if err != nil {
		return nil, err
	}
	defer zh.Close()
	en, err := os.Open(filepath.Join(dir, "en", "index.json"))
	if err != nil {
		return nil, err
	}
	defer en.Close()
	return Parse(bufio.NewReader(zh), en)
}

// Parse reads jieba's dictionary (a line per word: word, count, part of
// speech) and SUBTLEX-US's list ([{"word": …, "count": …}], words in any
// case).
func Parse(zh, en io.Reader) (*Freq, error) {
	f := &Freq{perMillion: make(map[string]float32, 70000)}
	counts := map[string]float64{}
	total := 0.0
	sc := bufio.NewScanner(zh)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		n, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			return nil, fmt.Errorf("wordfreq: zh line %d: %w", line, err)
		}
		counts[fields[0]] += n
		total += n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordfreq: zh: %w", err)
	}
	f.keep(counts, total)
	var list []struct {
		Word  string  `json:"word"`
		Count float64 `json:"count"`
	}
	if err := json.NewDecoder(en).Decode(&list); err != nil {
		return nil, fmt.Errorf("wordfreq: en: %w", err)
	}
	clear(counts)
	total = 0
	for _, w := range list {
		counts[strings.ToLower(w.Word)] += w.Count
		total += w.Count
	}
	f.keep(counts, total)
	if len(f.perMillion) == 0 {
		return nil, fmt.Errorf("wordfreq: no words")
	}
	return f, nil
}

// keep stores the words of one language at minPerMillion or more.
func (f *Freq) keep(counts map[string]float64, total float64) {
	if total == 0 {
		return
	}
	for w, n := range counts {
		if pm := n / total * 1e6; pm >= minPerMillion {
			f.perMillion[w] = float32(pm)
		}
	}
}

// PerMillion is how many times word (lower case) occurs in a million
// words of its language; 0 when it is rarer than once, or unknown (a
// name, slang, a pair of characters no word is).
func (f *Freq) PerMillion(word string) float64 {
	if f == nil {
		return 0
	}
	return float64(f.perMillion[word])
}

// Len is how many words are known.
func (f *Freq) Len() int {
	if f == nil {
		return 0
	}
	return len(f.perMillion)
}
