package popbench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/recalld/recalld/internal/synthchat"
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

// vocabulary is topicWords among made-up words (synthchat.Vocabulary).
var vocabulary = synthchat.Vocabulary(topicWords)

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
