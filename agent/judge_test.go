package agent_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/wordfreq"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// judgeService stores one user's private chat with a bot (and a brother's
// driving licence, a passport photo: look-alikes of things never said).
func judgeService(t *testing.T) *queryapi.Service {
	t.Helper()
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 20, 0, 0, 0, time.UTC) }
	user := func(id string, at time.Time, text string) storage.Message {
		return storage.Message{ID: id, Role: "user", SenderID: "42", SenderName: "小林", ConversationID: "p", CreatedAt: at, Content: text}
	}
	msgs := []storage.Message{
		user("m1", day(3, 1), "我最近在办护照，拍了护照照片，白底的那种"),
		user("m2", day(3, 2), "我弟弟上周考到驾照了，科目三一次过"),
		user("m3", day(3, 3), "对了我海鲜过敏，尤其是虾，吃了会起疹子"),
		{ID: "m4", Role: "assistant", SenderID: "bot", SenderName: "Bot", ConversationID: "p", CreatedAt: day(3, 3).Add(time.Minute),
			Content: "记住了，你对海鲜过敏。"},
		user("m5", day(3, 10), "我每天早上喝两杯美式咖啡，不加糖"),
		user("m6", day(4, 20), "最近开始戒咖啡了，早上改喝绿茶"),
		user("m7", day(4, 22), "我养了一只橘猫，叫馒头，三岁了"),
		user("m8", day(3, 20), "官网改版定在 4 月 15 号发布"),
		user("m9", day(4, 8), "时间推迟到 4 月 28 号发布了，设计稿还没定"),
		user("m10", day(3, 25), "Atlas 这个项目我负责后端接口"),
		user("m11", day(4, 12), "Atlas 的上线推迟到五月了"),
		user("m12", day(4, 14), "My partner Sam works as a nurse, mostly night shifts"),
		user("m13", day(4, 29), "今天去体检了，医生说血脂有点高"),
		user("m14", day(4, 10), "最近每天下班练半小时尤克里里，手指头都磨出茧了"),
		user("m15", day(4, 11), "新买了一辆自行车，以后骑车通勤"),
		user("m16", day(4, 12), "周末我一个人带两个孩子，累坏了"),
		// Answers that name nothing of what they answer: the bot's
		// question before each does.
		{ID: "m17", Role: "assistant", SenderID: "bot", SenderName: "Bot", ConversationID: "p", CreatedAt: day(4, 16),
			Content: "你下班以后一般怎么放松？"},
		user("m18", day(4, 16).Add(time.Minute), "去江边骑车，顺便拍拍晚霞"),
		{ID: "m19", Role: "assistant", SenderID: "bot", SenderName: "Bot", ConversationID: "p", CreatedAt: day(4, 17),
			Content: "Congrats on the offers! Which company did you choose in the end?"},
		user("m20", day(4, 17).Add(time.Minute), "Northwind Logistics, starting in June"),
		user("m21", day(1, 10), "周末看了电影《流浪地球》，特效很震撼"),
		user("m22", day(1, 24), "和朋友去看了电影《封神》，还不错"),
		user("m23", day(2, 14), "情人节看的电影是《热辣滚烫》，看哭了"),
		user("m24", day(2, 28), "一个人去看了电影《奥本海默》，有点长"),
		user("m25", day(3, 14), "昨晚的电影《沙丘2》画面太好看了"),
		user("m26", day(1, 5), "I visited Kyoto over the new year, the temples were lovely"),
		user("m27", day(2, 3), "Visited Lisbon for a conference, great food"),
		user("m28", day(2, 20), "Just visited Prague, so cold but beautiful"),
		user("m29", day(3, 8), "We visited Vienna for the opera"),
		user("m30", day(3, 30), "Visited Oslo last weekend, expensive city"),
		// A project talked of often: its name alone bears out little.
		user("m31", day(4, 15), "Atlas 周会又开了两个小时"),
		user("m32", day(4, 15).Add(time.Hour), "Atlas 的需求文档改到第三版了"),
		user("m33", day(4, 18), "Atlas 的测试环境又挂了，折腾了一下午"),
		user("m34", day(4, 19), "Signed the Orion vendor contract at last, the release slipped to July"),
		user("m35", day(4, 20), "Orion standup ran long again"),
		user("m36", day(4, 21), "Lunch with the Orion team today"),
		user("m37", day(4, 23), "The Orion test server crashed twice this afternoon"),
		user("m38", day(4, 24), "The Orion demo went fine"),
		user("m39", day(4, 25), "Wrote up the Orion retro notes"),
		user("m40", day(4, 26), "Orion docs are a mess"),
		user("m41", day(4, 27), "Orion budget review on Friday"),
		user("m42", day(4, 28), "Booked a room for the Orion planning"),
		{ID: "m43", Role: "assistant", SenderID: "bot", SenderName: "Bot", ConversationID: "p", CreatedAt: day(4, 18),
			Content: "你是在南京上班对吧？"},
		user("m44", day(4, 18).Add(time.Minute), "不对不对，苏州，做测试"),
		// A plan in the last few days that names nothing a question for
		// the window's plans would ask by.
		user("m45", day(4, 30), "下周二下午三点约了房东看房"),
		// Two parts of one question, each said in its own message.
		user("m46", day(2, 5), "我养了两只兔子，一只叫雪球，一只叫可乐"),
		user("m47", day(2, 20), "雪球两岁，可乐才半岁"),
		// What is said about one of the user's people.
		user("m48", day(3, 5), "我弟弟现在在字节上班，做推荐算法"),
		user("m50", day(3, 5), "我弟弟在考驾照，科目二挂了两次，愁死了"),
		// Said in English by a user who mostly writes Chinese.
		user("m51", day(3, 7), "my dog Biscuit is sick, took him to the vet"),
		user("m49", day(3, 6), "My dad and I used to go fishing every summer at the lake"),
		// A plan's day moved by a revision that says no change word.
		user("m52", day(3, 22), "点餐小程序 v2 定在 4 月 20 号发版"),
		user("m53", day(4, 14), "发版时间改到 5 月 6 号，老板同意了"),
		// A message about the user's mother that says, in a clause of its
		// own, where the user is from; and one whose clause without a
		// subject is the father's.
		user("m54", day(3, 9), "清明回绍兴我妈家了，我老家就是绍兴的，顺便看了看老同学"),
		user("m55", day(3, 12), "手术挺顺利，我爸已经能拄着拐走两步了"),
		// A plan revised by changing one's mind, in so many words.
		user("m56", day(3, 15), "那批样机我算了下，直接用第四版量产没问题"),
		user("m57", day(3, 17), "改主意了，那批样机还是出个第五版，省点成本"),
		// A choice put to the group, where the user's allergy (m3) matters.
		user("m58", day(4, 24), "组里周五聚餐在投票：日料自助还是海鲜大排档，明天截止"),
	}
	return serviceWith(t, "qq:42", msgs)
}

// TestOfflineJudgement holds the offline brain to absolute support (a
// question about something never said answers no_evidence even though
// messages share its characters), to recency for questions about now, and
// to searching the real question after a long preamble.
func TestOfflineJudgement(t *testing.T) {
	a := agent.New(judgeService(t), mustSkill(t))
	for _, tc := range []judgeCase{
		{name: "licence look-alike", question: "我有驾照吗？", noEvidence: true, forbidden: []string{"m1", "m2"}},
		{name: "allergy never said", question: "我对花粉过敏吗？", noEvidence: true, forbidden: []string{"m3", "m4"}, note: "no message bears out the question: searched"},
		{name: "allergy said", question: "我对什么过敏？", cited: []string{"m3"}},
		{name: "present tense", question: "我现在早上喝什么？", cited: []string{"m6"}, forbidden: []string{"m5"}, note: "superseded by m6"},
		{name: "past without present marker", question: "我以前早上喝什么咖啡？", cited: []string{"m5"}},
		{name: "revised plan", question: "官网改版什么时候发布？", cited: []string{"m9"}, forbidden: []string{"m8"}, note: "the later one revises it"},
		{name: "a plan's day moved", question: "点餐小程序什么时候发版？", cited: []string{"m53"}, forbidden: []string{"m52"}, note: "the later one revises it"},
		{name: "plan asked about the past", question: "官网改版原来定的哪天发布？", cited: []string{"m8"}},
		// A matter's course has its revisions among its steps: the first
		// plan is not set aside as revised (the words that ask for the
		// course, 帮我捋一下 and 咋回事, are no content).
		{name: "a plan's course keeps what was revised", question: "点餐小程序发版那个事从头到尾是咋回事 帮我捋一下", cited: []string{"m52"}},
		{name: "a named project is no subject", question: "Atlas 里我负责哪块？", cited: []string{"m10"}},
		{name: "a number asked, none given", question: "How old is my partner?", noEvidence: true, forbidden: []string{"m12"}, note: "gives no number"},
		{name: "a number asked and given", question: "我的猫几岁了？", cited: []string{"m7"}},
		{name: "an age asked, a count given", question: "我孩子几岁了？", noEvidence: true, forbidden: []string{"m16"}, note: "gives no age"},
		{name: "a relative never spoken of", question: "我妹妹对什么过敏？", noEvidence: true, forbidden: []string{"m3"}, note: "does not mention the sibling"},
		{name: "about a relative", question: "我弟弟在哪里上班？", cited: []string{"m48"}, forbidden: []string{"m2"}},
		{name: "about a relative in English", question: "What did I use to do with my dad?", cited: []string{"m49"}},
		{name: "a relative's look-alike", question: "我弟弟有女朋友吗？", noEvidence: true, forbidden: []string{"m2", "m48"}},
		{name: "a relative by name", question: "What does my partner do?", cited: []string{"m12"}},
		{name: "a kind named by a member", question: "我在学什么乐器？", cited: []string{"m14"}},
		{name: "an animal named by a member", question: "我家那只小动物叫啥？", cited: []string{"m7"}},
		{name: "a color asked and given", question: "我的护照照片是什么颜色的底？", cited: []string{"m1"}},
		{name: "a car asked, a bicycle said", question: "我开什么车？", noEvidence: true, forbidden: []string{"m15"}, note: "names no vehicle"},
		{name: "a color asked, none given", question: "我的自行车是什么颜色的？", noEvidence: true, forbidden: []string{"m15"}, note: "names no color"},
		{name: "a question in two parts", question: "我的两只兔子分别叫什么、几岁了？", cited: []string{"m46", "m47"}},
		{name: "the plans of a window", question: "我这几天约了什么事？", cited: []string{"m45"}, forbidden: []string{"m13", "m40"}},
		{name: "the one message of a window", question: "我这几天体检结果怎么样？", cited: []string{"m13"}},
		{name: "an answer to the bot's question", question: "我下班以后一般怎么放松？", cited: []string{"m18"}},
		{name: "an answer in English", question: "Which company did I choose?", cited: []string{"m20"}},
		{name: "a list in Chinese", question: "我都看过哪些电影？", among: []string{"m21", "m22", "m23", "m24", "m25"}, atLeast: 4},
		{name: "a list by grammar", question: "Which cities have I visited?", among: []string{"m26", "m27", "m28", "m29", "m30"}, atLeast: 4},
		{name: "an unsure answer cites less", question: "Atlas 上线的进展怎么样？", cited: []string{"m11"}, forbidden: []string{"m32", "m33"},
			note: "cite at most 2: 1 of the best"},
		{name: "an unsure answer in English", question: "Any progress on the Orion vendor contract?", cited: []string{"m34"},
			forbidden: []string{"m36", "m37"}, note: "cite at most 2: 1 of the best"},
		{name: "said of self beside a relative", question: "我老家是哪里的来着？", cited: []string{"m54"}},
		{name: "a relative's clause without subject", question: "我做过手术吗？", noEvidence: true, forbidden: []string{"m55"}},
		{name: "a change of mind", question: "那批样机最后决定用哪一版？", cited: []string{"m57"}, forbidden: []string{"m56"}, note: "superseded by m57"},
		{name: "a correction of the bot's guess", question: "我是在南京上班吗？", cited: []string{"m44"}},
		// A question asking what to choose is answered with the user's own
		// constraint on it too, far below the choice itself as it ranks.
		{name: "advice consults the user's constraint", question: "周五聚餐日料自助还是海鲜大排档 两个我都想去 你帮我选一个嘛 我投哪个",
			cited: []string{"m58", "m3"}, note: "the user's own constraint"},
		{name: "preamble", question: "今天加班到十点，地铁上人超多，好累啊。不好意思啰嗦了，我真正想问的是：我的猫叫什么？",
			cited: []string{"m7"}, note: "after the preamble"},
		{name: "preamble without a marker", question: "今天加班到十点，地铁上人超多，咖啡都没空喝。我养的猫叫什么来着？",
			cited: []string{"m7"}, forbidden: []string{"m5", "m6"}, note: "after the preamble"},
		{name: "preamble in English", question: "Ugh, the landlord raised the rent again, we might move after all. What does my partner do for work?",
			cited: []string{"m12"}, note: "after the preamble"},
	} {
		tc.check(t, a, "qq:42", "2026-05-01T12:00:00Z")
	}
}

// TestPetNameJudgement: a question asking a pet's name is answered by a
// message that gives one, not by one about a pet that gives none (the
// neighbour's cat, a roommate's cat sleeping on the desk).
func TestPetNameJudgement(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 20, 0, 0, 0, time.UTC) }
	user := func(id string, d int, text string) storage.Message {
		return storage.Message{ID: id, Role: "user", SenderID: "7", SenderName: "Huimin", ConversationID: "p", CreatedAt: day(d), Content: text}
	}
	noName := serviceWith(t, "qq:7", []storage.Message{
		user("n1", 2, "Btw the neighbour's cat keep coming to sleep outside my door, orange one, very manja"),
		user("n2", 5, "室友的猫又跳上我桌子把电脑踩到死机"),
	})
	named := serviceWith(t, "qq:7", []storage.Message{
		user("n1", 2, "Btw the neighbour's cat keep coming to sleep outside my door, orange one, very manja"),
		user("n3", 8, "我家猫儿叫汤圆 橘的 胖得很"),
	})
	namedEN := serviceWith(t, "qq:7", []storage.Message{
		user("e1", 3, "The toughest thing lately: we had to say goodbye to Max, our old dog, after ten years."),
		user("e2", 9, "Guess what - I got a puppy two weeks ago! Her name's Coco and she's adorable."),
	})
	for _, tc := range []struct {
		svc *queryapi.Service
		judgeCase
	}{
		{noName, judgeCase{name: "no name given", question: "我有没有跟你讲过我养的猫叫什么名字？", noEvidence: true, forbidden: []string{"n1", "n2"}}},
		{noName, judgeCase{name: "no name given, in English", question: "What's my cat called?", noEvidence: true, forbidden: []string{"n1", "n2"}}},
		{named, judgeCase{name: "a name after 叫", question: "我养的猫叫什么名字？", cited: []string{"n3"}, forbidden: []string{"n1"}}},
		// In English a name is a capitalized word inside a sentence ("say
		// goodbye to Max") or after "name's".
		{namedEN, judgeCase{name: "a name inside a sentence", question: "What was the name of the dog I had to say goodbye to?", cited: []string{"e1"}}},
		{namedEN, judgeCase{name: "a name after name's", question: "What's the name of my new puppy?", cited: []string{"e2"}}},
	} {
		tc.check(t, agent.New(tc.svc, mustSkill(t)), "qq:7", "2026-05-01T12:00:00Z")
	}
	// With word frequencies a capitalized word English seldom uses opens a
	// sentence as a name does (Mochi); a word of chat no list counts (Btw)
	// is none.
	freq, err := wordfreq.Load(filepath.Join("..", "internal", "wordfreq", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	judgeCase{name: "chat's Btw is no name", question: "我有没有跟你讲过我养的猫叫什么名字？", noEvidence: true, forbidden: []string{"n1", "n2"}}.
		check(t, agent.New(noName, mustSkill(t), agent.WithWordFreq(freq), agent.WithDictionary(agent.MiniDictionary(t))), "qq:7", "2026-05-01T12:00:00Z")
}

// TestBilingualJudgement holds the offline brain to matching a question
// in one language with what was said in the other, through the dictionary
// (a few real CC-CEDICT entries), and to abstaining when only part of the
// question is found that way.
func TestBilingualJudgement(t *testing.T) {
	dict := agent.MiniDictionary(t)
	with := agent.New(judgeService(t), mustSkill(t), agent.WithDictionary(dict))
	without := agent.New(judgeService(t), mustSkill(t))
	for _, tc := range []judgeCase{
		{name: "an English question, Chinese messages", question: "What movies have I seen?", among: []string{"m21", "m22", "m23", "m24", "m25"}, atLeast: 3},
		{name: "a word of three characters", question: "Do I have a bicycle?", cited: []string{"m15"}},
		{name: "a Chinese question, an English message", question: "我的狗最近怎么了？", cited: []string{"m51"}},
		{name: "half a question found in the other language", question: "Am I allergic to peanuts?", noEvidence: true, forbidden: []string{"m3", "m4"}},
	} {
		tc.check(t, with, "qq:42", "2026-05-01T12:00:00Z")
	}
	// Without the dictionary the answers of the second and third are not
	// found: the dictionary is what finds them. (The first's are, by their
	// titles in 《》: kinds.title.)
	for q, gold := range map[string]string{"Do I have a bicycle?": "m15", "我的狗最近怎么了？": "m51"} {
		resp, err := without.Recall(t.Context(), "qq:42", agent.Request{Question: q, Context: agent.RequestContext{Now: "2026-05-01T12:00:00Z"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range resp.Evidence {
			if e.MessageID == gold {
				t.Errorf("without the dictionary, %q cites %s", q, gold)
			}
		}
	}
}

// TestDialogueJudgement holds the offline brain to who said what in a
// dialogue between two named people: a question about one of them whose
// subject only the other told of, about themself, answers no_evidence
// rather than citing the first one's replies to it.
func TestDialogueJudgement(t *testing.T) {
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	var msgs []storage.Message
	say := func(who, text string) {
		i := len(msgs)
		msgs = append(msgs, storage.Message{ID: fmt.Sprintf("d%d", i+1), Role: "user", SenderID: strings.ToLower(who), SenderName: who,
			ConversationID: "s1", CreatedAt: t0.Add(time.Duration(i) * time.Minute), Content: text})
	}
	say("Caroline", "I was out walking in my neighborhood when I came across this cool rainbow sidewalk.") // d1
	say("Melanie", "Wow, that's gorgeous! Where did you find it?")                                         // d2
	say("Caroline", "Right by the park, someone painted it for pride month.")                              // d3
	say("Melanie", "I took the kids camping at the lake last weekend, we roasted marshmallows.")           // d4
	say("Caroline", "That sounds so fun! Did the kids like camping?")                                      // d5
	say("Melanie", "They loved it, my daughter already wants to go again.")                                // d6
	say("Caroline", "Guess what, I signed up for a pottery class!")                                        // d7
	say("Melanie", "Congrats! Which studio did you pick?")                                                 // d8
	say("Caroline", "The Clay Barn, downtown.")                                                            // d9
	say("Melanie", "Nice. I have been painting sunsets again lately.")                                     // d10
	say("Caroline", "Your sunsets are always so calming.")                                                 // d11
	say("Melanie", "Thanks! Work has been hectic, so painting helps me unwind.")                           // d12
	say("Melanie", "Hey Caroline, guess what, I finally finished my first marathon last Sunday!")          // d13
	say("Caroline", "I just took part in a marching event for veterans' rights, it was awesome.")          // d14
	say("Melanie", "Wow, Caroline! What made you do that?")                                                // d15
	say("Caroline", "I've always had great respect for our military and wanted to show my support.")       // d16
	say("Caroline", "My neighbor joined a nearby church choir this week, she sings every Sunday now.")     // d17
	// Two months before the rest: older than "recently" reaches.
	say("Melanie", "Just yesterday I joined a nearby church. I wanted to feel closer to a community.") // d18
	msgs[len(msgs)-1].CreatedAt = t0.AddDate(0, -2, 0)
	say("Melanie", "Since we chatted last, I've been blogging about local politics.") // d19
	msgs[len(msgs)-1].CreatedAt = t0.AddDate(0, -1, 0)
	a := agent.New(serviceWith(t, "locomo:d", msgs), mustSkill(t))
	for _, tc := range []judgeCase{
		{name: "the other speaker's news", question: "What did Melanie come across in her neighborhood during her walk?",
			noEvidence: true, forbidden: []string{"d1", "d2"}, note: "Caroline told of it about themself"},
		{name: "the speaker's own news", question: "What did Caroline come across in her neighborhood during her walk?", cited: []string{"d1"}},
		{name: "own news, the other asked", question: "Where did Melanie take the kids camping?", cited: []string{"d4"}},
		{name: "an answer to the other's question", question: "Which studio did Caroline pick for her pottery class?", cited: []string{"d9"}},
		{name: "the speaker only asked", question: "How did Caroline's kids like camping?",
			noEvidence: true, forbidden: []string{"d5"}, note: "only in asking"},
		{name: "the other speaker's news, told to the one asked about", question: "When did Caroline finish her first marathon?",
			noEvidence: true, forbidden: []string{"d13"}, note: "said by Melanie"},
		{name: "the same news asked of its speaker", question: "When did Melanie finish her first marathon?", cited: []string{"d13"}},
		{name: "a place never named", question: "Which studio did Caroline pick in Barcelona for her pottery class?",
			noEvidence: true, forbidden: []string{"d9"}, note: "never names barcelona"},
		{name: "a day named, not said", question: "What did Melanie take the kids to on 8 May, 2023?", cited: []string{"d4"}},
		{name: "the reason given when the other asked for it", question: "What inspired Caroline to join the marching event for veterans' rights?",
			cited: []string{"d16"}},
		{name: "recently, said long ago", question: "What has Melanie been blogging about recently?", cited: []string{"d19"}},
		{name: "recently, where only the other speaker said it this week", question: "Why did Melanie join a nearby church recently?",
			cited: []string{"d18"}, forbidden: []string{"d17"}},
	} {
		tc.check(t, a, "locomo:d", "2023-05-09T12:00:00Z")
	}
}

// judgeCase is a recall question and what its answer must and must not
// cite.
type judgeCase struct {
	name, question   string
	cited, forbidden []string
	// atLeast of among must be cited (a list cited up to its cap).
	among      []string
	atLeast    int
	noEvidence bool
	note       string // a note the limits must carry
}

// check asks a, for user at now, in a subtest named after the case.
func (tc judgeCase) check(t *testing.T, a *agent.Agent, user, now string) {
	t.Helper()
	t.Run(tc.name, func(t *testing.T) {
		resp, err := a.Recall(t.Context(), user, agent.Request{Question: tc.question, Context: agent.RequestContext{Now: now}})
		if err != nil {
			t.Fatal(err)
		}
		cited := citedIDs(resp)
		if got := resp.Limits.StopReason == agent.StopNoEvidence; got != tc.noEvidence {
			t.Errorf("no_evidence = %v, want %v; cited %v; notes %v", got, tc.noEvidence, cited, resp.Limits.Notes)
		}
		if tc.noEvidence && len(cited) > 0 {
			t.Errorf("no_evidence cites %v", cited)
		}
		for _, id := range tc.cited {
			if !slices.Contains(cited, id) {
				t.Errorf("%s not cited; cited %v; notes %v", id, cited, resp.Limits.Notes)
			}
		}
		n := 0
		for _, id := range tc.among {
			if slices.Contains(cited, id) {
				n++
			}
		}
		if n < tc.atLeast {
			t.Errorf("%d of %v cited, want at least %d; cited %v", n, tc.among, tc.atLeast, cited)
		}
		for _, id := range tc.forbidden {
			if slices.Contains(cited, id) {
				t.Errorf("%s cited; cited %v", id, cited)
			}
		}
		if tc.note != "" && !slices.ContainsFunc(resp.Limits.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
			t.Errorf("no note with %q: %v", tc.note, resp.Limits.Notes)
		}
	})
}

// TestCantoneseAndTraditional: a question in Cantonese (依家 now, 唔 not,
// 咩 what) or in traditional characters (現在, 還) asks about the present
// as its simplified Mandarin twin does, and a later statement that denies
// the earlier one in those words supersedes it. Liking two things (钟意)
// makes no one subject of them.
func TestCantoneseAndTraditional(t *testing.T) {
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 20, 0, 0, 0, time.UTC) }
	msgs := func(id string, texts ...string) []storage.Message {
		var out []storage.Message
		for i, text := range texts {
			out = append(out, storage.Message{ID: fmt.Sprintf("%s%d", id, i+1), Role: "user", SenderID: "5", SenderName: "阿欣", ConversationID: "p", CreatedAt: day(time.Month(1+3*i), 10), Content: text})
		}
		return out
	}
	for _, tc := range []struct {
		user     string
		messages []storage.Message
		jc       judgeCase
	}{
		{"qq:51", msgs("k", "我目标系浙江大学法律 屋企人都好支持", "谂清楚咗 唔读法律啦 改成读会计"),
			judgeCase{name: "Cantonese now", question: "我依家目标系咩专业", cited: []string{"k2"}, forbidden: []string{"k1"}, note: "superseded by k2"}},
		{"qq:52", msgs("d", "我最钟意嘅糖水系杨枝甘露", "唔想再做销售啦 改成做设计 我钟意画嘢"),
			judgeCase{name: "liking is no subject", question: "我最钟意嘅糖水系咩", cited: []string{"d1"}, forbidden: []string{"d2"}}},
		{"qq:53", msgs("w", "每天騎機車上下班 大概二十分鐘", "機車賣掉了 現在搭捷運上班"),
			judgeCase{name: "traditional now", question: "我現在每天怎麼去上班", cited: []string{"w2"}, forbidden: []string{"w1"}, note: "superseded by w2"}},
		// 换了 (switched) announces a change as 改了 does.
		{"qq:54", msgs("s", "猪肉我一直在老陈那拿 十几年了 价格公道", "老陈那边猪肉最近注水 我换了城东冻品的 贵一点"),
			judgeCase{name: "switched", question: "我现在猪肉在哪家拿货", cited: []string{"s2"}, forbidden: []string{"s1"}, note: "superseded by s2"}},
	} {
		a := agent.New(serviceWith(t, tc.user, tc.messages), mustSkill(t))
		tc.jc.check(t, a, tc.user, "2026-08-20T12:00:00Z")
	}
}

// TestPresentOfTopic: for a question about now that names a topic
// (乐器), a later statement that announces a change of something else
// ("最近开始 intermittent fasting") is not on its subject and supersedes
// nothing; one of the topic ("改练吉他") does, and words of change or of
// the present shared (开始, 最近) make no subject.
func TestPresentOfTopic(t *testing.T) {
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 20, 0, 0, 0, time.UTC) }
	user := func(id string, at time.Time, text string) storage.Message {
		return storage.Message{ID: id, Role: "user", SenderID: "7", SenderName: "Lena", ConversationID: "p", CreatedAt: at, Content: text}
	}
	other := serviceWith(t, "wx:7", []storage.Message{
		user("t1", day(1, 18), "报了个 adult cello class 每周四晚上 拉得像锯木头"),
		user("t2", day(3, 2), "最近在想要不要跳去 startup 做 PM"),
		user("t3", day(5, 10), "最近开始 intermittent fasting 16:8 中午12点到晚上8点吃"),
	})
	a := agent.New(other, mustSkill(t))
	judgeCase{name: "another subject's change", question: "我最近在学啥乐器", cited: []string{"t1"}, forbidden: []string{"t3"}}.
		check(t, a, "wx:7", "2026-05-20T12:00:00Z")
	lena := func(sender, id string, at time.Time, text string) storage.Message {
		return storage.Message{ID: id, Role: "user", SenderID: sender, SenderName: "Lena", ConversationID: "p", CreatedAt: at, Content: text}
	}
	for _, tc := range []struct {
		user string
		msgs []storage.Message
		jc   judgeCase
	}{
		{"wx:8", []storage.Message{
			lena("8", "s1", day(1, 18), "报了个大提琴班 每周四晚上"),
			lena("8", "s2", day(5, 10), "最近开始改练吉他了 大提琴太难了"),
		}, judgeCase{name: "the topic's change", question: "我现在在学什么乐器？", cited: []string{"s2"}, forbidden: []string{"s1"}, note: "superseded by s2"}},
		// Words of change or of the present two statements share are no
		// subject: "可以开始拉 Bach" and "最近开始 fasting" share 开始, the
		// fasting and the question share 最近.
		{"wx:9", []storage.Message{
			lena("9", "c1", day(1, 18), "报了个 adult cello class 每周四晚上 拉得像锯木头"),
			lena("9", "c2", day(5, 5), "最近 cello 老师说我进步了 可以开始拉 Bach 的 minuet 了"),
			lena("9", "c3", day(5, 10), "最近开始 intermittent fasting 16:8 中午12点到晚上8点吃"),
		}, judgeCase{name: "words of change are no subject", question: "我最近在学啥乐器", cited: []string{"c2"}}},
		// 之后 (afterwards) tells of a change as 以后 does: "之后上班坐地铁"
		// after the scooter is sold supersedes riding it to work.
		{"wx:10", []storage.Message{
			lena("10", "a1", day(1, 18), "每天骑电动车上下班 二十分钟 下雨就很崩溃"),
			lena("10", "a2", day(5, 10), "电动车卖掉了 地铁太方便 之后上班坐地铁就好"),
		}, judgeCase{name: "afterwards", question: "我现在每天怎么去上班？", cited: []string{"a2"}, forbidden: []string{"a1"}, note: "superseded by a2"}},
		// A day of the week two statements name (礼拜六, 礼拜一) is no
		// subject: hiring someone who starts next Monday does not revise
		// an opening moved to a Saturday.
		{"wx:11", []storage.Message{
			lena("11", "o1", day(4, 9), "开业的日子只能往后推了 五一肯定赶不上了 改到五月十六号 礼拜六"),
			lena("11", "o2", day(4, 18), "今天又面了一个服务员 手脚麻利 当场就定了 下礼拜一来帮忙打扫卫生"),
		}, judgeCase{name: "a weekday is no subject", question: "现在开业到底定的哪天", cited: []string{"o1"}}},
		// A statement that itself revises a plan is not turned back by a
		// later one that revises nothing: that one goes on from it.
		{"wx:12", []storage.Message{
			lena("12", "j1", day(3, 2), "跟你说 我决定要考日检了 报7月的N3 现在在背五十音跟文法"),
			lena("12", "j2", day(4, 6), "日检那个要改一下 不对 我改报12月的N3了 7月那场刚好撞到店里周年庆 排班排不掉"),
			lena("12", "j3", day(5, 3), "日检文法念到第十课了 て形还是好乱 想睡了 晚安"),
		}, judgeCase{name: "a revision goes on", question: "我日检现在是报哪一场啊？", cited: []string{"j2"}}},
	} {
		tc.jc.check(t, agent.New(serviceWith(t, tc.user, tc.msgs), mustSkill(t)), tc.user, "2026-05-20T12:00:00Z")
	}
}

// TestTraditionalCharacters: with the dictionary, the skill's words
// (written in simplified characters) also match as written in
// traditional ones, so "我對什麼過敏？" asks for a constraint as "我对什么过
// 敏？" does; without it, 過敏 is no word of the skill.
func TestTraditionalCharacters(t *testing.T) {
	intent := func(a *agent.Agent, q string) string {
		t.Helper()
		resp, err := a.Recall(t.Context(), "qq:42", agent.Request{Question: q,
			Context: agent.RequestContext{Now: "2026-05-01T12:00:00Z"}, Options: agent.Options{Trace: true}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range resp.Trace {
			if s.Phase == "observe" {
				return s.Decision
			}
		}
		t.Fatalf("%q: no observe step in the trace", q)
		return ""
	}
	with := agent.New(judgeService(t), mustSkill(t), agent.WithDictionary(agent.MiniDictionary(t)))
	without := agent.New(judgeService(t), mustSkill(t))
	for _, tc := range []struct {
		a    *agent.Agent
		q    string
		want bool
	}{
		{with, "我对什么过敏？", true},
		{with, "我對什麼過敏？", true},
		{without, "我對什麼過敏？", false},
	} {
		if got := intent(tc.a, tc.q); strings.HasPrefix(got, "intent constraint") != tc.want {
			t.Errorf("%q: observed %q, want constraint %v", tc.q, got, tc.want)
		}
	}
}
