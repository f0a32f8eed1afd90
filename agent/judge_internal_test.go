package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
	"github.com/recalld/recalld/skills"
	"github.com/recalld/recalld/storage"
)

func TestRealQuestion(t *testing.T) {
	turn := Lexicon{ZH: []string{"真正想问的是", "我想问的是", "我想问问", "对了"}, EN: []string{"my real question is"}}
	for _, tc := range []struct {
		q, want string
		ok      bool
	}{
		{"刚才聊了半天搬家，累死了。不好意思，我真正想问的是：我现在住哪？", "我现在住哪？", true},
		{"Long day, sorry for rambling. My real question is: where do I live?", "where do I live?", true},
		{"我住哪？", "我住哪？", false},
		{"我真正想问的是：", "我真正想问的是：", false}, // nothing after the marker
		// 对了 turns from the preamble to the question.
		{"制冰机是不是要再买一台啊 唉\n啊对了 新的那家杯子厂商 业务叫什么", "新的那家杯子厂商 业务叫什么", true},
		// The marker asks someone else.
		{"小阿姨四月份去哪里旅游的?我想问问她报的哪个团", "小阿姨四月份去哪里旅游的?我想问问她报的哪个团", false},
	} {
		got, ok := realQuestion(tc.q, turn)
		if got != tc.want || ok != tc.ok {
			t.Errorf("realQuestion(%q) = %q, %v; want %q, %v", tc.q, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAfterPreamble(t *testing.T) {
	filler := Lexicon{ZH: []string{"你还记得", "记得", "什么", "吗", "从头到尾", "咋样的"}, EN: []string{"remember", "gave you", "na"}}
	reference := Lexicon{ZH: []string{"跟你说过", "那个事", "这事"}, EN: []string{"told you", "gave you"}}
	for _, tc := range []struct {
		q, want string
		ok      bool
	}{
		{"早上地铁又挤爆了，差点没上去，烦死。我现在每天通勤要多久来着？", "我现在每天通勤要多久来着？", true},
		{"ugh the landlord raised the rent again. what does my partner do for work?", "what does my partner do for work?", true},
		{"Long week. Where do I live? And since when?", "Where do I live? And since when?", true},
		{"今天好累。我的猫叫什么？谢谢！", "我的猫叫什么？", true},
		{"我之前跟你说过我去日本玩的事。今天下雨了。我最喜欢哪个城市？", "我之前跟你说过我去日本玩的事。 我最喜欢哪个城市？", true},
		{"今天好累。我上次说的那家火锅店。你还记得吗？", "我上次说的那家火锅店。 你还记得吗？", true},
		{"我住哪？", "我住哪？", false},
		{"我的猫叫什么，你还记得吗？", "我的猫叫什么，你还记得吗？", false},
		{"今天好累。帮我想想晚饭吃什么。", "帮我想想晚饭吃什么。", true},   // asks by its words
		{"今天好累。帮我想想晚饭。", "今天好累。帮我想想晚饭。", false},   // asks nothing
		{"今晚跟老同事聚餐 我吃的喝的要注意啥", "我吃的喝的要注意啥", true}, // a space ends a Chinese clause
		// A sentence that names the matter asked about is part of the question.
		{"今天累死了 搬店那个事从签合同到开业 中间出了啥岔子", "搬店那个事从签合同到开业 中间出了啥岔子", true},
		{"俩娃上幼儿园这事折腾了好几个月 最后咋样了", "俩娃上幼儿园这事折腾了好几个月 最后咋样了", true},
		// A bare question before it ("从头到尾是咋样的") goes with it, and so
		// does the sentence before that names the matter.
		{"今天累死了 我那个攒钱买游戏机的事 从头到尾是咋样的 现在机子在哪😂", "我那个攒钱买游戏机的事 从头到尾是咋样的 现在机子在哪😂", true},
		{"嗓子发炎好几天了，大夫说要给我挂点滴。有啥药我不能用的？", "有啥药我不能用的？", true},
		{"Version 3.5 shipped. Which release had the login bug?", "Which release had the login bug?", true},
		// A sentence after the question that asks nothing is its reason.
		{"when's my wedding again? my family needs to book flights", "when's my wedding again?", true},
		// So is one that says who waits for the answer: its 呢 asks nothing.
		// Without a question mark, the sentences after the last that asks
		// by its words are left out, a request among them too: its words
		// (捋捋, summarize, 看看) are searched as the question's otherwise.
		{"我这微信学到哪一步了 从头给我捋捋 朵朵问我呢", "我这微信学到哪一步了", true},
		{"上周跑的哪个厂来着 报销单要填地点", "上周跑的哪个厂来着", true},
		{"我学号是多少来着 又要填一个 form 懒得翻 email", "我学号是多少来着", true},
		// A message that asks nothing but requests: the sentences after its
		// request are the reason; those before stay.
		{"我那篇 paper 从开始写到现在 整个过程帮我 recap 一下 要写进 annual progress report", "我那篇 paper 从开始写到现在 整个过程帮我 recap 一下", true},
		// 帮我 in what someone else said is no request of the assistant's.
		{"室友说帮我带奶茶 我平时喝多少糖", "我平时喝多少糖", true},
		{"室友说帮我带奶茶 我平时喝的甜度", "室友说帮我带奶茶 我平时喝的甜度", false},
		// In one sentence, the clauses after the last that asks or
		// requests are its reason, unless they point back.
		{"签证的事从头到尾是咋办下来的，你帮我理一理，我要讲给我妹妹听，她也想去。", "签证的事从头到尾是咋办下来的，你帮我理一理", true},
		{"我住哪来着，跟你说过的那个小区", "我住哪来着，跟你说过的那个小区", false},
		{"我血压是不是有点高？记得跟你说过我在吃降压药", "我血压是不是有点高？记得跟你说过我在吃降压药", false},
		{"今年我回了几趟老家？都是为啥回去的", "今年我回了几趟老家？都是为啥回去的", false}, // both ask
		// In English, a clause after the last comma that says why the
		// question is asked (a need, a plan, a cause) is its reason; one that
		// names content or points back stays.
		{"what time's my dentist on thurs again, need to tell the new clinic", "what time's my dentist on thurs again", true},
		{"when's my flight home, cos mum wants to pick me up", "when's my flight home", true},
		{"what was the name of that cafe, the one in Newtown", "what was the name of that cafe, the one in Newtown", false},
		{"what year did I move here, pretty sure I told you", "what year did I move here, pretty sure I told you", false},
		// A tag question that points back ("I gave you na?") asks nothing of
		// its own: the request before it is the question.
		{"kindly tell me my Emirates ID number, bank KYC update is pending. I gave you na?", "kindly tell me my Emirates ID number, bank KYC update is pending. I gave you na?", false},
		// A sentence before that asks by a plain word of asking goes with it
		// (not 几 or 咋, which a preamble says too).
		{"期末派对要发零食 班里哪个小朋友有过敏来着 对啥过敏", "班里哪个小朋友有过敏来着 对啥过敏", true},
		{"这几天我是不是跟你吐槽过什么程序挂了 最后咋解决的", "这几天我是不是跟你吐槽过什么程序挂了 最后咋解决的", false},
		{"你还记得吗？我上次说的那家火锅店", "你还记得吗？我上次说的那家火锅店", false}, // the question asks nothing of its own
		{"我住哪？我几乎每天都加班", "我住哪？", true},                  // 几乎 asks nothing
		// A sentence saying the asker cannot recall asks nothing.
		{"我之前弄的那辆车花了几个钱 咋想不起了", "我之前弄的那辆车花了几个钱", true},
		// A last sentence that says what the asker will do with the answer
		// is no part of the question, though it asks by a word (几次).
		{"体测到底是哪天来着 我要算下还能练几次800", "体测到底是哪天来着", true},
		{"体测到底是哪天来着 还能练几次", "体测到底是哪天来着 还能练几次", false}, // a second question
		{"Would Caroline likely have Dr. Seuss books on her bookshelf?", "Would Caroline likely have Dr. Seuss books on her bookshelf?", false},
		{"What areas of the U.S. has John been to?", "What areas of the U.S. has John been to?", false},
		{"Would Tim enjoy books by C. S. Lewis or John Greene?", "Would Tim enjoy books by C. S. Lewis or John Greene?", false},
		{"What J.K. Rowling quote does Tim like?", "What J.K. Rowling quote does Tim like?", false},
	} {
		got, ok := afterPreamble(tc.q, filler, reference)
		if got != tc.want || ok != tc.ok {
			t.Errorf("afterPreamble(%q) = %q, %v; want %q, %v", tc.q, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWithoutReason(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"我媳妇儿过生日到底是几号 明年我可不能再在外头过了", "我媳妇儿过生日到底是几号"},
		{"what's my room number again? need it for a delivery form", "what's my room number again?"},
		{"继续教育学分我还欠多少 暑假要报名了", "继续教育学分我还欠多少"},
		// A request to the assistant is part of the question.
		{"那回追尾的事 后来都咋处理的 给我从头捋捋", "那回追尾的事 后来都咋处理的 给我从头捋捋"},
		{"onboarding 那个实验是怎么推进的 帮我串一下", "onboarding 那个实验是怎么推进的 帮我串一下"},
		{"我媳妇儿过生日是几号", "我媳妇儿过生日是几号"},
	} {
		if got := withoutReason(tc.q); got != tc.want {
			t.Errorf("withoutReason(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"今天好累。我的猫叫什么？谢谢！", []string{"今天好累。", "我的猫叫什么？", "谢谢！"}},
		{"今晚跟老同事聚餐  我吃的喝的要注意啥", []string{"今晚跟老同事聚餐", "我吃的喝的要注意啥"}},
		{"我在 Google 上班", []string{"我在 Google 上班"}}, // a space beside Latin letters ends nothing
		{"Version 3.5 shipped. Which release?", []string{"Version 3.5 shipped.", "Which release?"}},
		// An emoji ends a sentence as a stop does.
		{"刚下夜班脑壳昏，收了三个病人 😵 对了，我那个执业证几时到期？", []string{"刚下夜班脑壳昏，收了三个病人 😵", "对了，我那个执业证几时到期？"}},
		{"dinner was great 👍🏻 anyway where do I work?", []string{"dinner was great 👍🏻", "anyway where do I work?"}},
		{"累死了😮‍💨明天还要早起", []string{"累死了😮‍💨", "明天还要早起"}},
	} {
		if got := sentences(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("sentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAfterLead(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"恭喜勇哥！记下了：二店开业", "记下了：二店开业"},
		{"理解～已记下：每周日上午十点", "已记下：每周日上午十点"},
		{"Wow! Noted: Steam page live", " Noted: Steam page live"},
		{"Congratulations! Noted: Steam page live", ""},
		{"根据你之前说的情况，我建议", ""}, // a sentence of its own, no short word
		{"I'd suggest asking your doctor first.", ""},
		{"好的", ""},
	} {
		if got := afterLead(tc.in); got != tc.want {
			t.Errorf("afterLead(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNamesOneOf(t *testing.T) {
	sibling := Lexicon{EN: []string{"sister", "brother"}, ZH: []string{"妹妹", "姐姐"}}
	for _, tc := range []struct {
		content string
		want    bool
	}{
		{"my sister Aoife is up from Cork this weekend", true},
		{"姐姐圆圆下个月结婚", true},
		{"my sister's called Mia", true},
		{"our new puppy is called Biscuit", false}, // a name, but of no sibling
		{"my sister is up from Cork this weekend", false},
		{"my sister and I went to Cork", false},
		{"妹妹小美下个月结婚", true},
		{"妹妹小学毕业了", false},
	} {
		if got := namesOneOf(sibling, MiniDictionary(t))(tc.content); got != tc.want {
			t.Errorf("namesOneOf(%q) = %v, want %v", tc.content, got, tc.want)
		}
	}
}

func TestNamesPart(t *testing.T) {
	diet := Lexicon{ZH: []string{"吃", "不吃", "海鲜", "菜", "饭", "麻辣", "食物"}, EN: []string{"food", "seafood", "spicy"}, Generic: []string{"吃", "食物", "food"}}
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"吃海鲜要注意吗", true},
		{"do i eat seafood?", true},
		{"我有什么不吃的？", false},  // 不吃 holds the generic 吃
		{"我吃饭最嫌弃的是啥", false}, // 饭 alone names no dish
		{"what food do i like?", false},
		{"do i like spicy food?", false}, // spicy describes food
		{"我喜欢麻辣的食物吗", false},
	} {
		if got := namesPart(tc.q, diet); got != tc.want {
			t.Errorf("namesPart(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestPresentTense(t *testing.T) {
	present := Lexicon{ZH: []string{"现在", "目前"}, EN: []string{"now", "still"}}
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"我现在住哪？", true},
		{"我还抽烟吗？", true},
		{"你还记得我住哪吗？", false},
		{"我是喝咖啡还是喝茶？", false},
		{"我還抽菸嗎？", true},
		{"你還記得我住哪嗎？", false},
		{"do i still smoke?", true},
		{"where did i live?", false},
	} {
		if got := presentTense(tc.q, present); got != tc.want {
			t.Errorf("presentTense(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

// TestSupportIDF: a message sharing only the common word of a question
// about something never said gets little support; one with the specific
// word gets most of it.
func TestSupportIDF(t *testing.T) {
	msg := func(id, text string) *candidate {
		return &candidate{ev: queryapi.Evidence{MessageID: id, Role: "user", Content: text}}
	}
	seen := map[string]*candidate{
		"a": msg("a", "我海鲜过敏，吃虾会起疹子"),
		"b": msg("b", "我朋友花生过敏"),
		"c": msg("c", "今年春天花粉特别多，出门戴口罩"),
		"d": msg("d", "周末去爬山了"),
	}
	rel := relevance{terms: []string{"花粉", "过敏"}, evidence: []string{"花粉", "过敏", "花", "粉", "过", "敏"}}
	idf := rel.idf(seen)
	if idf["花粉"] <= idf["过敏"] {
		t.Errorf("idf 花粉 %v ≤ idf 过敏 %v: the rarer term must weigh more", idf["花粉"], idf["过敏"])
	}
	sa, sc, sd := rel.support(seen["a"].ev, idf, 0), rel.support(seen["c"].ev, idf, 0), rel.support(seen["d"].ev, idf, 0)
	if !(sc > sa && sa > sd) || sd != 0 {
		t.Errorf("support: 花粉 message %.2f, 过敏 message %.2f, unrelated %.2f; want 花粉 > 过敏 > unrelated = 0", sc, sa, sd)
	}
	// A topic named as a whole (宠物) lends its members (狗狗) credit; a
	// member of a topic (猫) lends the others nothing.
	whole := relevance{terms: []string{"家"}, evidence: []string{"家"}, broad: []string{"狗"}}
	if s := whole.support(queryapi.Evidence{Content: "我家狗狗两岁了"}, whole.idf(seen), 0.3); s < 0.3 {
		t.Errorf("宠物 against 狗狗: support %v, want at least the credit 0.3", s)
	}
	member := relevance{terms: []string{"猫叫"}, evidence: []string{"猫叫", "猫", "叫"}}
	if s := member.support(queryapi.Evidence{Content: "我家狗狗两岁了"}, member.idf(seen), 0.3); s != 0 {
		t.Errorf("猫 against 狗狗: support %v, want 0", s)
	}
}

// TestHybridPriorsNeedDialogue: in a user's chat with a bot the speaker
// prior is off and contextual BM25 gives way to plain BM25, so the ranking
// equals the plain one; in a dialogue of named people both apply.
func TestHybridPriorsNeedDialogue(t *testing.T) {
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	botChat := []storage.Message{
		{ID: "b1", Role: "user", ConversationID: "p", SenderName: "Nina", CreatedAt: at(0), Content: "I moved to Leeds last year"},
		{ID: "b2", Role: "assistant", ConversationID: "p", SenderName: "Bot", CreatedAt: at(1), Content: "Leeds is lovely. How is the new flat?"},
		{ID: "b3", Role: "user", ConversationID: "p", SenderName: "Nina", CreatedAt: at(2), Content: "the flat is small but close to the hospital"},
		{ID: "b4", Role: "user", ConversationID: "p", SenderName: "Nina", CreatedAt: at(3), Content: "my sister lives in Leeds too"},
	}
	tools := mustTools(t, botChat)
	q := "Where does Nina live, Leeds?"
	prior, err := hybrid(t.Context(), tools, q, hybridOpts{Weights: queryapi.Weights{Contextual: 1, Speaker: 2}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := hybrid(t.Context(), tools, q, hybridOpts{Weights: queryapi.Weights{Lexical: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queryapitest.Scores(plain), queryapitest.Scores(prior), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("bot chat: contextual + speaker prior differ from plain BM25 (-plain +got):\n%s", diff)
	}

	dialogue := chat("d", 0,
		[2]string{"Ann", "Where did you move last year?"},
		[2]string{"Bob", "To Leeds, near the hospital"},
		[2]string{"Ann", "Leeds! My cousin lives there"},
	)
	tools = mustTools(t, dialogue)
	q = "Where did Bob move?"
	with, err := hybrid(t.Context(), tools, q, hybridOpts{Weights: queryapi.Weights{Contextual: 1, Speaker: 2}})
	if err != nil {
		t.Fatal(err)
	}
	without, err := hybrid(t.Context(), tools, q, hybridOpts{Weights: queryapi.Weights{Contextual: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range with {
		for _, o := range without {
			if w.MessageID == o.MessageID && w.SenderName == "Bob" && w.Score != 3*o.Score {
				t.Errorf("dialogue: %s scored %v, want 3 × %v (the speaker prior)", w.MessageID, w.Score, o.Score)
			}
		}
	}
}

func TestHasNumeral(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"我闺女今年高三", true},
		{"今天一共走了 18 公里", true},
		{"我养了一只橘猫", true},
		{"我们一起去吃饭吧", false},
		{"My partner is a vet", false},
		{"I have two kids", true},
		{"we meet twice a week", true},
		{"someone at the office", false}, // "one" only as a word
	} {
		if got := hasNumeral(tc.text); got != tc.want {
			t.Errorf("hasNumeral(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestHasAge(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"我儿子今年六岁，刚上一年级", true},
		{"我的猫三岁了", true},
		{"宝宝 8 个月大了", true},
		{"She just turned 40 last week", true},
		{"my 5-year-old son loves dinosaurs", true},
		{"Alex is 32 years old", true},
		{"我一个人带两个孩子", false},
		{"I have two kids", false},
		{"我闺女今年高三", false},
		{"we moved here 3 years ago", false},
	} {
		if got := hasAge(tc.text); got != tc.want {
			t.Errorf("hasAge(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestRelationOf(t *testing.T) {
	rels := map[string]Lexicon{
		"parent":  {EN: []string{"dad", "mom"}, ZH: []string{"爸爸", "妈妈"}},
		"sibling": {EN: []string{"brother"}, ZH: []string{"弟弟"}},
		"child":   {ZH: []string{"娃", "小朋友"}},
	}
	for _, tc := range []struct {
		question      string
		owner, anyone string
	}{
		{"我弟弟在哪里上班？", "sibling", "sibling"},
		{"我的妈妈喜欢什么花？", "parent", "parent"},
		{"What does my brother do?", "sibling", "sibling"},
		{"What's my brother's name?", "sibling", "sibling"}, // before a possessive
		{"What did Caroline used to do with her dad?", "", "parent"},
		{"Where does Melanie's mom live?", "", "parent"},
		{"她的妈妈做什么工作？", "", "parent"},
		{"What did the kids make?", "", ""},
		{"Is my daddy-long-legs spider still alive?", "", ""},
		{"我家小朋友那回上台扮成了啥？", "child", "child"},
		{"上周六我带娃去哪儿了", "child", "child"},
	} {
		lower := strings.ToLower(tc.question)
		if got := relationOf(lower, rels, true); got != tc.owner {
			t.Errorf("relationOf(%q, owner only) = %q, want %q", tc.question, got, tc.owner)
		}
		if got := relationOf(lower, rels, false); got != tc.anyone {
			t.Errorf("relationOf(%q) = %q, want %q", tc.question, got, tc.anyone)
		}
	}
}

func TestAsksForSeveral(t *testing.T) {
	for _, tc := range []struct {
		question string
		want     bool
	}{
		{"What books has Melanie read?", true},
		{"What are Joanna's hobbies?", true},
		{"What outdoor activities does John enjoy?", true},
		{"What kinds of music do I like?", true},
		{"What people has Maria met?", true},
		{"What has John cooked?", true},
		{"Where has Melanie camped?", true},
		{"Which cities am I visiting in Japan?", true},
		{"What motivates Joanna to keep writing?", false}, // a verb, not a plural
		{"What is Caroline's relationship status?", false},
		{"What kind of job does Joanna do?", false},
		{"What does John do to relax?", false},
		{"Where does Maria live?", false},
	} {
		if got := asksForSeveral(strings.ToLower(tc.question)); got != tc.want {
			t.Errorf("asksForSeveral(%q) = %v, want %v", tc.question, got, tc.want)
		}
	}
}

func TestQuoted(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{`我说过的"周五截止"是哪个项目？`, []string{"周五截止"}},
		{"What did I say about 'the blue door'?", []string{"the blue door"}},
		{"How's the menu redesign for my mom's noodle shop going?", nil},
		{"What's 'Orion' about, and who's on it?", []string{"Orion"}},
		{"「开会」是哪天说的？", []string{"开会"}},
	} {
		if got := quoted(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("quoted(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"What's on my schedule this week?", nil},
		{"Who's Caroline's sister?", []string{"Caroline"}},
		{"What did Melanie paint?", []string{"Melanie"}},
		{"Does Nate have turtles?", []string{"Nate"}},
		{"Atlas 里我负责哪块？", []string{"Atlas"}},
		{"What did Maria and her mom do together in May 2023?", []string{"Maria"}},
		{"Where was Jon on 3 March?", []string{"Jon"}},
		{"Did May call Jon?", []string{"May", "Jon"}},
		{"What music do I play when I'm baking late, and what I'll eat?", nil},
		{"Is it true I've met Mom's friend O'Brien?", []string{"Mom", "O'Brien"}},
	} {
		if got := names(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("names(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestWhenExpr(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"dentist appointment at 9am", true},
		{"6 月 6 号上线", true},
		{"下午三点开会", true},
		{"meeting at 14:30", true},
		{"deadline 4/1", true},
		{"我晚上经常失眠", false},
		{"I have 2 cats", false},
		{"version 3.5 shipped", false},
	} {
		if got := whenExpr.MatchString(strings.ToLower(tc.text)); got != tc.want {
			t.Errorf("whenExpr(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestGivenNames(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"我养了两只猫，一只叫团子，一只叫年糕", []string{"团子", "年糕"}},
		{"我女儿叫乐乐，今年六岁", []string{"乐乐"}},
		{"晚上叫了外卖", nil},
		{"we adopted a dog named Max last spring", []string{"Max"}},
		{"my cat Mochi is sick", []string{"Mochi"}},
		{"My little brother Leo starts school", []string{"Leo"}},
		{"my cat is sick", nil},
	} {
		if got := givenNames(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("givenNames(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestMeasuredUnits(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"体重 68 公斤，得减肥了", []string{"公斤"}},
		{"现在 62公斤，目标达成！", []string{"公斤"}},
		{"ran 5.5 km this morning, 3 miles yesterday", []string{"km", "miles"}},
		{"买了台 Switch，两千出头", nil},
		{"I have 2 cats", nil},
	} {
		if got := measuredUnits(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("measuredUnits(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestTranslations: a question's terms get their words in the other
// language; a character on its own keeps its first sense only.
func TestTranslations(t *testing.T) {
	d := MiniDictionary(t)
	for _, tc := range []struct {
		question string
		terms    []string
		want     map[string][]string
	}{
		{"我有自行车吗？", []string{"自行", "行车"}, map[string][]string{"自行": {"bicycle", "bike"}, "行车": {"bicycle", "bike"}}},
		{"我的影呢？", []string{"影"}, map[string][]string{"影": {"picture"}}},
		{"我看的书", []string{"书"}, map[string][]string{"书": {"book"}}},
		{"Do I have a cat?", []string{"cat"}, map[string][]string{"cat": {"猫只", "猫", "家猫", "狸猫"}}},
		{"我有驾照吗？", []string{"有驾"}, nil},
		// The dictionary lists verbs by their base form, and a verb with
		// its particle as a sense of its own (听 is "to listen to");
		// driving alone is only the end of "drunk driving".
		{"What do I listen to while driving?", []string{"listen", "driv"}, map[string][]string{"listen": {"听"}, "driv": {"驾驶"}}},
		{"I'd give up my favourite colour", []string{"give", "favourite", "colour"}, map[string][]string{"give": {"放弃"}, "favourite": {"最喜爱"}, "colour": {"颜色"}}},
		// A word that is a sense as it stands is not read as its base.
		{"Was I tired?", []string{"tired"}, map[string][]string{"tired": {"劳累", "累"}}},
	} {
		got := translations(d, tc.question, tc.terms)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("translations(%q, %q) (-want +got):\n%s", tc.question, tc.terms, diff)
		}
	}
}

// TestAboutOthers: a message speaks of someone else when a third-party
// marker stands on its own, not when it joins the speaker.
func TestAboutOthers(t *testing.T) {
	markers := []string{"我妈", "我朋友", "my mom", "my dad", "my friend", "she said", "说她", "说他"}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"我妈对花粉过敏", true},
		{"室友说她对芒果过敏 我俩点外卖要避开芒果", true}, // reported of her
		{"医生说我尿酸高 痛风犯了", false},        // reported of me
		{"my friend is allergic to peanuts", true},
		{"my mom and i made some dinner together last night!", false},
		{"i used to go horseback riding with my dad when i was a kid", false},
		{"me and my mom went to the market", false},
		{"我和我妈周末去爬山了", false},
		{"周末陪我妈去医院复查", false},
		{"我妈和我都喜欢吃辣", false},
		{"最后还是给我妈下单了戴森吹风机", false},
		{"i got a new phone for my dad", false},
		{"i lent my car to my friend", false},
		{"my dad got a new phone", true},
		{"went hiking with my dad, my friend got lost", true},
		{"my mom and i went out, she said it was fun", true},
		{"my friend's corgi chewed through my charger", true},
		{"my old friend is getting married in july", true},
		{"my best friend moved to oslo", true},
		{"me and my little friend went fishing", false},
		{"my friendship with her ended", false},
		{"my mom, my dad and i", true},
		{"我们一起去吃饭", false},
		{"my momentum is gone", false},
	} {
		if got := aboutOthers(tc.text, markers); got != tc.want {
			t.Errorf("aboutOthers(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestJoking: a joke marker makes a message a jest unless a correction
// follows it.
func TestJoking(t *testing.T) {
	jokes := []string{"开玩笑", "jk", "kidding"}
	corrections := []string{"其实", "actually", "seriously"}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"我要辞职去环游世界，开玩笑的", true},
		{"i'm moving to mars jk", true},
		{"我最爱吃榴莲，哈哈，开玩笑的，其实我受不了榴莲的味道", false},
		{"jk, actually i'm a nurse", false},
		{"其实我挺喜欢的，开玩笑的", true}, // the correction comes before the joke
		{"seriously, i love it. just kidding", true},
		{"i quit my job. kidding! seriously though, i got promoted", false},
		{"my cat likes jkl", false}, // jk inside a word
		{"我是程序员", false},
	} {
		if got := joking(tc.text, jokes, corrections); got != tc.want {
			t.Errorf("joking(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestCorrected: what a message means after a joke starts at the
// correction.
func TestCorrected(t *testing.T) {
	text := "我最爱吃榴莲，哈哈，开玩笑的，其实我受不了榴莲的味道"
	joke, at := corrected(text, []string{"开玩笑"}, []string{"其实", "说真的"})
	if joke || at < 0 || text[at:] != "其实我受不了榴莲的味道" {
		t.Errorf("corrected(%q) = %v, %d; want no joke, meant from 其实", text, joke, at)
	}
	if joke, at := corrected("我是程序员", []string{"开玩笑"}, []string{"其实"}); joke || at != -1 {
		t.Errorf("corrected without a joke = %v, %d; want false, -1", joke, at)
	}
}

// MiniDictionary loads the bilingual package's test dictionary (a few
// real CC-CEDICT entries); exported for the package's external tests.
func MiniDictionary(t *testing.T) *bilingual.Dict {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "internal", "bilingual", "testdata", "mini.js"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := bilingual.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestYesNo(t *testing.T) {
	for q, want := range map[string]bool{
		"Did I join a forum recently?":       true,
		"Any new workout routine this week?": true,
		"我最近去健身房了吗？":                         true,
		"我是不是最近换了工作？":                        true,
		"What forum did Tim join recently?":  false,
		"我最近在看什么书？":                          false,
		"我最近戒了什么？":                           false,
		"Where does Ann live?":               false,
		"孩子高考完了，总算能松口气。我那辆车之前是什么毛病？":               false,
		"Mom called for an hour. Do I have a dog?": true,
	} {
		if got := yesNo(q); got != want {
			t.Errorf("YesNo(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestAsksOnly(t *testing.T) {
	for text, want := range map[string]bool{
		"What instrument are you playing? What genres do you like?":    true,
		"Hey Nate! How often do you all work out together?":            true,
		"You're the drummer in the band, right?":                       true,
		"你是做后端开发的对吧？":                                                  true,
		"要不要试试瑜伽？":                                                     true,
		"Learning an instrument is really cool. What are you playing?": false, // says something
		"Just started doing aerial yoga. Anything new with you?":       false, // chat drops the I
		"I joined a forum. Have you been to one?":                      false,
		"我最近在学吉他，你会弹吗？":                                                false,
		"Went hiking with my dad yesterday.":                           false,
	} {
		if got := asksOnly(text); got != want {
			t.Errorf("asksOnly(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestAskedAnchors: the names a yes/no question asks about, without the
// speakers; none for another question or an inference.
func TestAskedAnchors(t *testing.T) {
	speakers := map[string]bool{"caroline": true}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"Did I go skiing in Hokkaido this year?", []string{"hokkaido"}},
		{"Am I moving to Singapore for a nursing job?", []string{"singapore"}},
		{"Did Caroline go to Paris?", []string{"paris"}},
		{"Would Caroline likely enjoy Vivaldi?", nil},
		{"Where did I go skiing in Hokkaido?", nil},
		{"Did I go skiing this year?", nil},
		{"Talked to Anna for an hour. Did I go skiing in Hokkaido?", []string{"hokkaido"}},
		{"Anna asked me. Would I like Hokkaido?", nil},
	} {
		o := observation{names: names(tc.q)}
		if got := askedAnchors(tc.q, o, speakers); !slices.Equal(got, tc.want) {
			t.Errorf("askedAnchors(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

// TestNamesAfter: a pet name right after a relation word, not an adverb
// or a kinship word; 小 and a character only with a dictionary that knows
// no word they open.
func TestNamesAfter(t *testing.T) {
	child := []string{"女儿", "儿子", "娃"}
	d := MiniDictionary(t)
	for _, tc := range []struct {
		text string
		dict *bilingual.Dict
		want []string
	}{
		{"女儿朵朵四岁 今天表演", nil, []string{"朵朵"}},
		{"儿子阿宝考了第一", nil, []string{"阿宝"}},
		{"女儿天天哭着要妈妈", nil, nil},
		{"儿子小学毕业了", nil, nil},
		{"女儿今天生日", nil, nil},
		{"儿子宝宝都睡了", nil, nil},
		{"my daughter Lily", nil, nil},
		{"儿子小军说考研报名定了", d, []string{"小军"}},
		{"儿子小军说考研报名定了", nil, nil},
		{"儿子小学毕业了", d, nil},
		{"女儿小时候怕水", d, nil},
		{"女儿小提琴考过了八级", d, nil},
	} {
		if got := namesAfter(tc.text, child, tc.dict); !slices.Equal(got, tc.want) {
			t.Errorf("namesAfter(%q, dict %v) = %v, want %v", tc.text, tc.dict != nil, got, tc.want)
		}
	}
}

// TestNextTurn: the turn after a candidate is the earliest later neighbour
// of its conversation; one before it, or of another conversation, is not.
func TestNextTurn(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ev := func(id, conv string, minutes int) queryapi.Evidence {
		return queryapi.Evidence{MessageID: id, ConversationID: conv, CreatedAt: at.Add(time.Duration(minutes) * time.Minute)}
	}
	c := &candidate{ev: ev("a", "c1", 0), context: []queryapi.Evidence{ev("b", "c1", -1), ev("d", "c1", 5), ev("e", "c2", 1), ev("f", "c1", 2)}}
	if next, ok := nextTurn(c); !ok || next.MessageID != "f" {
		t.Errorf("nextTurn = %q, %v; want f", next.MessageID, ok)
	}
	c.context = c.context[:1]
	if next, ok := nextTurn(c); ok {
		t.Errorf("nextTurn = %q with only an earlier turn; want none", next.MessageID)
	}
}

// TestRebuts: a user's turn that opens by denying what was said to it.
func TestRebuts(t *testing.T) {
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{skill: sk}
	for _, tc := range []struct {
		role, text string
		want       bool
	}{
		{"user", "不是插画！还是做UI", true},
		{"user", "  not vegan! vegetarian", true},
		{"user", "No, I work nights", true},
		{"user", "nothing new today", false}, // "not" is no word of it
		{"user", "对 就是这样", false},
		{"assistant", "不是的，你说的是周三", false},
	} {
		if got := r.rebuts(queryapi.Evidence{Role: tc.role, Content: tc.text}); got != tc.want {
			t.Errorf("rebuts(%s %q) = %v, want %v", tc.role, tc.text, got, tc.want)
		}
	}
}

// TestDenies: a user's turn that denies, anywhere, a value the turn
// before it gave.
func TestDenies(t *testing.T) {
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{skill: sk}
	for _, tc := range []struct {
		role, text, said string
		want             bool
	}{
		{"user", "是 10月3号 lol not 13 国庆那天", "10月13号的婚礼准备得怎么样了", true},
		{"user", "周五见，不是周四", "那我们周四见？", true},
		{"user", "it's Tuesday, not Thursday", "see you Thursday then", true},
		{"user", "not bad, thanks", "how was the trip?", false}, // bad is nothing it said
		{"user", "我不是很想去", "周末去爬山吗", false},
		{"assistant", "not 13", "13号", false},
	} {
		if got := r.denies(queryapi.Evidence{Role: tc.role, Content: tc.text}, tc.said); got != tc.want {
			t.Errorf("denies(%s %q after %q) = %v, want %v", tc.role, tc.text, tc.said, got, tc.want)
		}
	}
}

func TestClauses(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"周六带朵朵逛了拙政园 她说像电视里的皇宫", []string{"周六带朵朵逛了拙政园", "她说像电视里的皇宫"}},
		{"菜单终于定稿了！我妈说下周拿去打印", []string{"菜单终于定稿了", "我妈说下周拿去打印"}},
		{"went to 上海 with mom, she loved it", []string{"went to 上海 with mom", "she loved it"}},
		{"买了 iPhone 16 很好用", []string{"买了 iphone 16 很好用"}},
	} {
		if got := clauses(strings.ToLower(tc.text)); !slices.Equal(got, tc.want) {
			t.Errorf("clauses(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestSpeaksOf: a name spoken to (at the start, after a comma or a
// greeting, ending its clause) is no mention of its bearer.
func TestSpeaksOf(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Thanks, Melanie! This necklace is special to me", false},
		{"Hey Melanie, I had to shut down my bank account", false},
		{"Yeah, Melanie, my family's been great", false},
		{"Melanie, look at this!", false},
		{"Melanie painted that bowl for me", true},
		{"I went hiking with Melanie last week.", true},
		{"Thanks! Melanie said the same", true},
		{"Melanies are rare", false}, // not the name
	} {
		if got := speaksOf(tc.text, []string{"melanie"}); got != tc.want {
			t.Errorf("speaksOf(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestWidenRanksAgain: widening the window to all time drops the scores
// the window's searches gave (a share of the best hit inside it), so the
// wider searches rank every message again.
func TestWidenRanksAgain(t *testing.T) {
	r := &run{seen: map[string]*candidate{
		"m1": {ev: queryapi.Evidence{MessageID: "m1"}, score: 0.9},
		"m2": {ev: queryapi.Evidence{MessageID: "m2"}, score: 0.4},
	}}
	r.window = timeWindow{since: time.Now().AddDate(0, 0, -7)}
	or := &offlineRun{offlineBrain: &offlineBrain{}, r: r}
	or.widen(0, "nothing in the %s window; searched all time")
	if !or.widened || !r.window.since.IsZero() {
		t.Fatalf("widened %v, window %+v: want all time", or.widened, r.window)
	}
	for id, c := range r.seen {
		if c.score != 0 {
			t.Errorf("%s keeps score %v from the window's search, want 0", id, c.score)
		}
	}
	r.remember([]queryapi.Evidence{{MessageID: "m2", Score: 0.7}})
	if got := r.seen["m2"].score; got != 0.7 {
		t.Errorf("m2 after the wider search: score %v, want 0.7", got)
	}
}

// TestKeyTermsFunctionWords: indefinite pronouns and "manage to" say
// nothing a message could bear out; as key terms no message has they
// weighed most in support ("Did I manage to beat anyone at badminton
// last weekend?" against "周六打球 终于赢了那个uncle一局").
func TestKeyTermsFunctionWords(t *testing.T) {
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	filler := sk.Params.Markers["filler"]
	for _, tc := range []struct {
		q          string
		want, none []string
	}{
		{"Did I manage to beat anyone at badminton last weekend?", []string{"beat", "badminton"}, []string{"manage", "anyone"}},
		{"Did someone give me something for my birthday?", []string{"give", "birthday"}, []string{"someone", "something"}},
		{"Who manages my team at work?", []string{"manages", "team", "work"}, nil},
		{"Kite 上线时间后来改了吗？", []string{"kite", "上线"}, []string{"后来"}},
		{"我现在具体负责什么方向？", []string{"负责", "方向"}, []string{"具体"}},
		{"我家小朋友那回上台扮成了啥？", []string{"上台"}, []string{"啥", "成了啥"}},
		{"What am I going to do about the lease?", []string{"lease"}, []string{"going"}},
		{"btw what do i usually order at starbucks lol", []string{"order", "starbuck"}, []string{"btw", "lol"}},
		{"eh summarise my kuih business from start until now can or not?", []string{"kuih", "business"}, []string{"eh", "summarise", "now", "start"}},
		{"我带娃去哪儿了", []string{"带娃"}, []string{"儿"}},
		{"我现在住深圳哪边", []string{"深圳"}, []string{"边"}},
		{"娃要去哪所幼儿园", []string{"幼儿"}, []string{"所"}},
		{"挂车年审那个事前前后后咋样了", []string{"挂车", "年审"}, []string{"事前", "前后", "后后"}},
		// A measure word after 哪 asks which one: 次 of 哪次 is no content.
		{"上个星期我打本哪次掉线了？", []string{"打本", "掉线"}, []string{"次掉", "次"}},
		{"我看了哪部电影", []string{"电影"}, []string{"部电"}},
		{"哪几天白天找我找不到人", []string{"几天", "白天"}, nil},
		{"我喺邊度返工", []string{"返工"}, []string{"邊度", "度返"}},
		// Cantonese and traditional characters write their own function
		// words and asking phrases.
		{"我作息咩样嘅", []string{"作息"}, []string{"咩样", "样嘅", "息咩"}},
		{"我喺边度返工", []string{"返工"}, []string{"边度", "我喺", "度返"}},
		{"你還記得我養的寵物叫什麼嗎", []string{"寵物"}, []string{"記得", "還記", "什麼", "物叫"}},
	} {
		got := keyTerms(tc.q, filler)
		for _, w := range tc.want {
			if !slices.Contains(got, stem(w)) {
				t.Errorf("keyTerms(%q) = %q, want %q among them", tc.q, got, stem(w))
			}
		}
		for _, w := range tc.none {
			if slices.Contains(got, stem(w)) {
				t.Errorf("keyTerms(%q) = %q: %q is no content", tc.q, got, w)
			}
		}
	}
}

// TestEvidenceAsksForAKind: 什么类型的, 啥类型, 什么样的 ask for a kind of
// the thing after them; no message says 类型, so as a term of support it
// would weigh most and hold back "追剧只看悬疑和刑侦" for "我喜欢看啥类型的剧？".
func TestEvidenceAsksForAKind(t *testing.T) {
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	asking := askingWords(sk.Params)
	for _, tc := range []struct {
		q          string
		want, none []string
	}{
		{"我喜欢看啥类型的剧？", []string{"剧"}, []string{"类型", "型的", "类", "型"}},
		{"我平时穿什么样的鞋", []string{"穿", "鞋"}, []string{"样的", "么样", "样"}},
	} {
		got := keyTerms(tc.q, asking)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("keyTerms(%q) = %q, want %q among them", tc.q, got, w)
			}
		}
		for _, w := range tc.none {
			if slices.Contains(got, w) {
				t.Errorf("keyTerms(%q) = %q: %q is no content", tc.q, got, w)
			}
		}
	}
}

// TestKeyTermsAskingPhrase: a hyphenated asking word is blanked whole, so
// its parts do not become terms ("go" of go-to would bear out "going").
func TestKeyTermsAskingPhrase(t *testing.T) {
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	got := keyTerms("what's my go-to comfort dish", askingWords(sk.Params))
	if slices.Contains(got, "go") || !slices.Contains(got, stem("comfort")) {
		t.Errorf("keyTerms = %q, want comfort and no go", got)
	}
	// 从头 (from the start) asks for a matter's course; its 头 is no term.
	if got := keyTerms("帮我从头捋一捋领养汤圆的整个过程", askingWords(sk.Params)); slices.Contains(got, "头") || !slices.Contains(got, "领养") {
		t.Errorf("keyTerms = %q, want 领养 and no 头", got)
	}
}

func TestNegated(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"我不吃香菜", true},
		{"I can't handle spicy food", true},
		{"90 mins, zero pain", true},
		{"no pain at all since Tuesday", true},
		{"a week without coffee", true},
		{"ankle's getting better, still limping", false},
		{"I know the nominee", false}, // no is a word, not a prefix
	} {
		if got := negated(tc.text); got != tc.want {
			t.Errorf("negated(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestPossessive(t *testing.T) {
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	marks, members := sk.Params.Markers["possessive"], ofHousehold(sk.Params)
	for q, want := range map[string]string{
		"我家猫叫啥名字":    "我猫叫啥名字",
		"我家的狗几岁了":    "我的狗几岁了",
		"咱家娃多大了":     "咱娃多大了",
		"我家在哪个区":     "我家在哪个区",
		"我家楼下那家店叫啥":  "我家楼下那家店叫啥",
		"我家小区门口新开的店": "我家小区门口新开的店",
		"我家女儿和我家狗":   "我女儿和我狗",
	} {
		if got := possessive(q, marks, members); got != want {
			t.Errorf("possessive(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestNumeralWords: a marker made of numerals (万一, "in case") is no
// word inside a number, so a rent of 一万一千五 is no hypothetical.
func TestNumeralWords(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"万一下雨就不去了", 1},
		{"要是万一他不来呢", 1},
		{"月租一万一千五", 0},
		{"月租一萬一千五", 0},
		{"押金2万一次付清", 0},
		{"十万一个月太贵", 0},
	} {
		if got := countHits(tc.text, []string{"万一", "萬一"}); got != tc.want {
			t.Errorf("countHits(%q, 万一) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// TestCantoneseCourseWords: 由头到尾 (from start to end) and 去到边 (how
// far has it got) ask for a matter's course in Cantonese, as 从头到尾 and 到
// 哪了 do: they mark the question a thread's and are no terms of it, so
// "阿妈只眼嗰件事由头到尾系点？而家去到边？" is weighed by the mother's eye.
// (Their traditional forms, 由頭到尾, come from the dictionary at load.)
func TestCantoneseCourseWords(t *testing.T) {
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	const q = "阿妈只眼嗰件事由头到尾系点？而家去到边？"
	r := &run{skill: sk, question: q, now: time.Date(2026, 6, 27, 12, 0, 0, 0, time.UTC)}
	if o := r.observe(); !o.thread {
		t.Errorf("%q is not read as asking for a course", q)
	}
	terms := keyTerms(q, askingWords(sk.Params))
	for _, bad := range []string{"由头", "头到", "到尾", "去到", "到边"} {
		if slices.Contains(terms, bad) {
			t.Errorf("keyTerms(%q) = %v: %s is a word of asking", q, terms, bad)
		}
	}
	if !slices.Contains(terms, "阿妈") {
		t.Errorf("keyTerms(%q) = %v, want 阿妈", q, terms)
	}
}

func TestForSelf(t *testing.T) {
	for _, tc := range []struct {
		before string
		want   bool
	}{
		{"我妈给我报了", true},
		{"我媽給我報了", true}, // traditional forms
		{"老板让我下周去", true},
		{"我妈说我", false},   // 我 as who is spoken of, not the object of a doing
		{"给我买了 我", false}, // the last 我 is the subject
		{"我", false},
	} {
		if got := forSelf(tc.before); got != tc.want {
			t.Errorf("forSelf(%q) = %v, want %v", tc.before, got, tc.want)
		}
	}
}

func TestAsksFromTo(t *testing.T) {
	for s, want := range map[string]bool{
		"搬店那个事从签合同到开业 中间出了啥子岔子": true,
		"從看房到簽約花了多久":            true,
		"我晚班是从几点跑到几点？":          false, // a span asked by its ends
		"momo 婚假从哪天到哪天":         false,
		"我从小到大都怕狗":              false, // an extent
		"我老家是哪的":                false,
	} {
		if got := asksFromTo(s); got != want {
			t.Errorf("asksFromTo(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestLastWeekToldThisWeek: 上周 reaches into this week, where what was
// done last week is often told ("上周体检了…" on a Tuesday), but a message
// of this week that tells of its own day or the next ("明天去龙华包材厂")
// is this week's and out of the window.
func TestLastWeekToldThisWeek(t *testing.T) {
	now := time.Date(2026, 5, 12, 12, 0, 0, 0, time.UTC) // a Tuesday
	w, ok := explicitDates("上周跑的哪个厂来着", now)
	if !ok || !w.told.Equal(time.Date(2026, 5, 11, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("window %+v, %v; want one told up to Monday 11 May", w, ok)
	}
	r := &run{window: w}
	for _, tc := range []struct {
		days    int
		content string
		in      bool
	}{
		{5, "今天跑东莞长安 注塑厂看修模后的件", true}, // last week's own day
		{1, "明天去龙华 包材厂 看彩盒打样", false},  // this week's
		{1, "上周五还去了趟中山 五金厂 看铰链", true}, // told this week of last week
		{0, "today I went to the print shop", false},
		{1, "去了趟五金厂", true},
	} {
		c := &candidate{ev: queryapi.Evidence{Role: "user", Content: tc.content, CreatedAt: now.AddDate(0, 0, -tc.days)}}
		if got := r.inScope(c); got != tc.in {
			t.Errorf("%q, %d days ago: in window %v, want %v", tc.content, tc.days, got, tc.in)
		}
	}
}

// TestContainsName: a name said in the possessive is said ("Our Kirsty's
// wedding is Saturday 27 June"), with either apostrophe; a longer name
// that starts with it is not.
func TestContainsName(t *testing.T) {
	for _, tc := range []struct {
		text, name string
		want       bool
	}{
		{"our kirsty's wedding is saturday 27 june", "kirsty", true},
		{"our kirsty’s wedding is saturday 27 june", "kirsty", true},
		{"kirsty is getting married", "kirsty", true},
		{"kirstyann's wedding", "kirsty", false},
		{"the kirsty's-fan club", "kirsty", true},
	} {
		if got := containsName(tc.text, tc.name); got != tc.want {
			t.Errorf("containsName(%q, %q) = %v, want %v", tc.text, tc.name, got, tc.want)
		}
	}
}

// TestHabitIsNoHypothetical: a message that opens with its condition tells
// what would follow, not what is, unless what follows always does.
func TestHabitIsNoHypothetical(t *testing.T) {
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{skill: sk}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"if I ever win the lottery I'm buying a boat", true},
		{"If I get the choice on the rota I'll always take long days over earlies", false},
		{"if it rains I never go running", false},
		{"If I were rich I'd always fly business", true},
	} {
		c := &candidate{ev: queryapi.Evidence{Role: "user", Content: tc.text}}
		if got := r.flags(c).hypothetical; got != tc.want {
			t.Errorf("%q: hypothetical %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestThreadWord: two Chinese characters tie two messages to one matter,
// unless one is a numeral (一九七三年 and 写成一本 share 九七 and 成一); an
// English word does with four letters or more.
func TestThreadWord(t *testing.T) {
	for _, tc := range []struct {
		term string
		want bool
	}{
		{"忆录", true}, {"房東", true}, {"九七", false}, {"成一", false}, {"一間", false}, {"忆", false},
		{"memoir", true}, {"the", false}, {"boat", true},
	} {
		if got := threadWord(tc.term); got != tc.want {
			t.Errorf("threadWord(%q) = %v, want %v", tc.term, got, tc.want)
		}
	}
}

func TestAsksCode(t *testing.T) {
	checkEach(t, "asksCode", asksCode, map[string]bool{
		"What's the booth number I got at the market?":       true,
		"我的医保卡号是多少来着":                                        true,
		"Priya asking again for the block code":              true,
		"What was the highest number of points John scored?": false,
		"What is John's number one goal?":                    false,
		"我家猫叫啥":                                              false,
	})
	checkEach(t, "hasCode", hasCode, map[string]bool{
		"买家卡号 KM-6021387":                  true,
		"Saved: visa TRNs EGO8F2K4XQ":      true,
		"商标申请号 79640318":                   true,
		"第一次摆摊是 5月16号 Saturday, 7am 到 1pm": false,
		"booth 我 apply 了":                  false,
	})
}

func TestAsksAdvice(t *testing.T) {
	checkEach(t, "asksAdvice", asksAdvice, map[string]bool{
		"婷婷生日蛋糕小雪喊投票了 两个我都想吃 你帮我选一个嘛 我投哪个":      true,
		"陈叔约十月去七娘山，你觉得我报唔报名好？":                  true,
		"Should I sign up for the Sunday ride?": true,
		"你覺得我該不該去":                              true,
		"我投了哪个来着":                               false,
		"What did I pick for the wedding cake?": false,
	})
}

func TestAsksPhone(t *testing.T) {
	checkEach(t, "asksPhone", asksPhone, map[string]bool{
		"Mr Koh handphone number what ah? aircon leaking": true,
		"房东电话多少来着":                                        true,
		"what's my landlord's phone number again":         true,
		"What phone am I using right now?":                false,
		"上次电话里他说了啥":                                       false,
		"What's the booth number I got at the market?":    false,
		"我的医保卡号是多少来着":                                     false,
	})
	checkEach(t, "hasPhone", hasPhone, map[string]bool{
		"Landlord is Mr Koh, 9123 4567":                   true,
		"房东电话 138-0013-8000":                              true,
		"asking $9,800/month, corner unit 1,100 sqft":     false,
		"Signed LOI, 3+3 years, handover 1 July, unit 05": false,
	})
}

// checkEach holds a predicate of the judge to the answers of its cases.
func checkEach(t *testing.T, name string, f func(string) bool, cases map[string]bool) {
	t.Helper()
	for in, want := range cases {
		if got := f(in); got != want {
			t.Errorf("%s(%q) = %v, want %v", name, in, got, want)
		}
	}
}
