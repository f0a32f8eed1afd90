// Package synthchat is the vocabulary of the synthetic chats benchmarks
// build (recalld bench, the tenancy benchmarks): real topic words among
// made-up ones, in frequency rank order.
package synthchat

import "strings"

// Vocabulary returns topics among 5,000 made-up words, by frequency rank:
// chat vocabulary is Zipf-distributed, so a uniform draw from a few dozen
// words (every word in a quarter of all messages) would make every query
// term a stop word. The topics take every other rank from 40 on, so they
// are common but not stop words.
func Vocabulary(topics []string) []string {
	syl := strings.Fields("ka lo mi ne su ta ri po ve da zu bi ho fe ga")
	var out []string
	for i := 0; len(out) < 5000; i++ {
		w := syl[i%15] + syl[(i/15)%15] + syl[(i/225)%15]
		if i >= 3375 {
			w += "n"
		}
		out = append(out, w)
		if len(out) >= 40 && len(out) < 40+2*len(topics) && len(out)%2 == 0 {
			out = append(out, topics[(len(out)-40)/2])
		}
	}
	return out
}
