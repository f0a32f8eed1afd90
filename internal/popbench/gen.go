package popbench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/recalld/recalld/storage"
)

// t0 is the time of each user's first message; message k comes k minutes
// later.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// topicWords are the words the questions and queries ask about, spread
// through a made-up vocabulary.
var topicWords = strings.Fields(`coffee project atlas budget meeting friday spicy noodles hiking trip
	deadline review design launch weekend movie dinner sister doctor gym running book guitar paris
	火锅 辣 会议 周末 项目 咖啡 电影 晚饭 医生 跑步 吉他 旅行 预算 设计 上线 妹妹 北京 上海 喜欢 不吃`)

// vocabulary is topicWords among 5,000 made-up words, by frequency rank:
// chat vocabulary is Zipf-distributed, so a uniform draw from a few dozen
// words would make every query term a stop word.
var vocabulary = func() []string {
	syl := strings.Fields("ka lo mi ne su ta ri po ve da zu bi ho fe ga")
	var out []string
	for i := 0; len(out) < 5000; i++ {
		w := syl[i%15] + syl[(i/15)%15] + syl[(i/225)%15]
		if i >= 3375 {
			w += "n"
		}
		out = append(out, w)
		if len(out) >= 40 && len(out) < 40+2*len(topicWords) && len(out)%2 == 0 {
			out = append(out, topicWords[(len(out)-40)/2])
		}
	}
	return out
}()

// generator makes synthetic chat turns of 8-20 words.
type generator struct {
	r    *rand.Rand
	zipf *rand.Zipf
}

func newGenerator(r *rand.Rand) *generator {
	return &generator{r: r, zipf: rand.NewZipf(r, 1.07, 2, uint64(len(vocabulary)-1))}
}

// messages returns a user's messages start to start+n-1.
func (g *generator) messages(start, n int) []storage.Message {
	out := make([]storage.Message, n)
	for i := range out {
		k := start + i
		words := make([]string, 8+g.r.IntN(13))
		for j := range words {
			words[j] = vocabulary[g.zipf.Uint64()]
		}
		out[i] = storage.Message{
			ID: fmt.Sprintf("m%d", k), Role: []string{"user", "assistant"}[k%2], ConversationID: fmt.Sprintf("c%d", k/200),
			SenderName: []string{"Ann", "Bot"}[k%2], Content: strings.Join(words, " "), CreatedAt: t0.Add(time.Duration(k) * time.Minute),
		}
	}
	return out
}
