//go:build integration

package ingest

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/recalld/recalld/internal/embed"
	"github.com/recalld/recalld/internal/embed/bge"
	"github.com/recalld/recalld/storage"
)

// TestClauseClassifierExperiment measures, on the tune half of the
// labelled observations, the alternative to verb frames that issue 15
// suggests: bge-small-zh scoring each clause about the sender against
// exemplars of each category (and of statements that are no fact), the
// rules' filters (subject, questions, hypotheticals, jokes, relatives)
// kept. It needs the model (make setup) and runs only with -tags
// integration:
//
//	go test -tags integration -run TestClauseClassifierExperiment -v ./ingest
func TestClauseClassifierExperiment(t *testing.T) {
	enc, err := bge.LoadEncoder("../models/bge-small-zh", bge.EncoderOptions{})
	if err != nil {
		t.Skip("bge-small-zh:", err)
	}
	exemplars := map[string][]string{
		"location":   {"住在北京", "搬到了上海", "在深圳定居", "lives in Seattle", "moved to Berlin"},
		"hometown":   {"老家在湖南", "是四川人", "来自东北", "grew up in Toronto", "is originally from Ohio"},
		"occupation": {"是一名老师", "做程序员", "当护士", "is a software engineer", "works as a nurse"},
		"workplace":  {"在腾讯上班", "在一家银行工作", "就职于华为", "works at Google", "got a job at Amazon"},
		"school":     {"在复旦读研", "在北大上学", "毕业于浙大", "studies at UCL", "is a student at MIT"},
		"birthday":   {"生日是5月20日", "生日在十月", "birthday is March 3"},
		"marital":    {"结婚了", "单身", "离婚了", "is married", "is single"},
		"family":     {"有一个女儿", "有个弟弟", "有两个孩子", "has a son", "has a sister"},
		"pet":        {"养了一只猫", "家里有条狗", "养了仓鼠", "has a dog", "has two cats"},
		"diet":       {"吃素", "是素食主义者", "is vegan", "is vegetarian"},
		"food":       {"喜欢吃火锅", "不吃香菜", "爱吃辣", "loves sushi", "doesn't eat pork"},
		"drink":      {"爱喝咖啡", "不喝酒", "喜欢喝奶茶", "drinks a lot of tea", "doesn't drink alcohol"},
		"allergy":    {"对花生过敏", "海鲜过敏", "乳糖不耐受", "is allergic to cats", "is lactose intolerant"},
		"hobby":      {"喜欢打篮球", "爱看电影", "迷上了摄影", "loves hiking", "enjoys playing chess"},
		"language":   {"会说粤语", "英语很好", "母语是日语", "speaks French", "is fluent in Spanish"},
		"learning":   {"在学吉他", "开始学日语", "报了个游泳班", "is learning Spanish", "is taking a pottery class"},
		"habit":      {"每天早上跑步", "晚上十二点睡", "每周三上课", "usually goes to bed at 1am", "goes to the gym every morning"},
		"none": {"今天好累", "心情不好", "加班到十一点", "下雨了", "明天要去杭州出差", "想吃火锅", "打算明年换工作",
			"is so tired today", "is excited about the weekend", "went to a concert yesterday", "will visit Paris next week",
			"觉得这个电影不错", "被老板骂了", "感冒了", "is stressed about the deadline"},
	}
	var labels []string
	var texts []string
	for c, xs := range exemplars {
		for _, x := range xs {
			labels = append(labels, c)
			texts = append(texts, x)
		}
	}
	ex, err := enc.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/observations.json")
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Observations []struct {
			Split, Lang, Text string
			Facts             []struct {
				Category []string
				Keys     []string
				Optional bool
			}
		}
	}
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string {
		var b strings.Builder
		for _, r := range strings.ToLower(s) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	type item struct {
		pred, gold, rules string
	}
	var items []item
	h := NewHistorian(HistorianConfig{})
	for _, o := range set.Observations {
		if o.Split != "tune" || facts.jokes.MatchString(o.Text) {
			continue
		}
		subj := map[string]Subject{"zh": {ID: "qq:10001", Name: "张三"}, "en": {ID: "qq:20002", Name: "Alice"}}[o.Lang]
		turn := TurnEnd{Observations: []string{o.Text}, SenderID: subj.ID, SenderName: subj.Name, RequestType: RequestPrivate,
			Timestamp: time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)}
		ev := h.Events(Job{Job: storage.Job{ID: "j"}, Turn: turn})[0].Content
		about := false
		for _, c := range splitClauses(ev) {
			s := joinHan(facts.stripTimes(c.text))
			rest, explicit := "", false
			for _, f := range subjectForms(subj) {
				if r, ok := strings.CutPrefix(s, f); ok {
					rest, explicit = r, true
					break
				}
			}
			switch {
			case explicit:
				about = true
			case about && !otherSubject.MatchString(s):
				rest = s
			default:
				about = false
				continue
			}
			if s == "" || c.question || facts.questions.MatchString(s) || facts.skip.MatchString(s) || facts.others.MatchString(rest) {
				about = false
				continue
			}
			pred := facts.stripAdverbs(strings.TrimSpace(rest))
			if pred == "" {
				continue
			}
			gold, optional := "none", false
			for _, f := range o.Facts {
				if !slices.ContainsFunc(f.Keys, func(k string) bool { return !strings.Contains(norm(pred), norm(k)) }) {
					if f.Optional {
						optional = true
						continue
					}
					gold = strings.Join(f.Category, "/")
				}
			}
			if optional && gold == "none" {
				continue
			}
			rules := "none"
			if fs, _ := facts.match(pred, nil); len(fs) > 0 {
				rules = fs[0].Category
			}
			items = append(items, item{pred, gold, rules})
		}
	}
	preds := make([]string, len(items))
	for i, it := range items {
		preds[i] = it.pred
	}
	start := time.Now()
	vs, err := enc.Embed(t.Context(), preds)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d clauses embedded in %v", len(items), time.Since(start))
	score := func(pred func(i int) string) (p, r float64) {
		tp, fp, fn := 0, 0, 0
		for i, it := range items {
			got := pred(i)
			ok := slices.Contains(strings.Split(it.gold, "/"), got)
			switch {
			case got != "none" && ok:
				tp++
			case got != "none":
				fp++
				if it.gold != "none" {
					fn++
				}
			case it.gold != "none":
				fn++
			}
		}
		return float64(tp) / float64(max(tp+fp, 1)), float64(tp) / float64(max(tp+fn, 1))
	}
	rp, rr := score(func(i int) string { return items[i].rules })
	t.Logf("rules (frames only, no ellipsis): clause P %.2f R %.2f", rp, rr)
	for _, th := range []float32{0.5, 0.55, 0.6, 0.65, 0.7, 0.75} {
		classify := func(i int) string {
			best, bc := float32(-1), "none"
			for j, e := range ex {
				if s := embed.Cosine(vs[i], e); s > best {
					best, bc = s, labels[j]
				}
			}
			if best < th {
				return "none"
			}
			return bc
		}
		p, r := score(classify)
		hp, hr := score(func(i int) string {
			if items[i].rules != "none" {
				return items[i].rules
			}
			return classify(i)
		})
		t.Logf("%s", fmt.Sprintf("bge 1-NN threshold %.2f: clause P %.2f R %.2f; rules then bge: P %.2f R %.2f", th, p, r, hp, hr))
	}
}
