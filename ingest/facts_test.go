package ingest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/ingest"
)

func TestExtractFacts(t *testing.T) {
	zh := ingest.Subject{ID: "qq:10001", Name: "张三"}
	en := ingest.Subject{ID: "qq:20002", Name: "Alice"}
	f := func(cat, slot, v, pol, lang string) ingest.Fact {
		return ingest.Fact{Category: cat, Slot: slot, Value: v, Polarity: pol, Lang: lang}
	}
	tests := []struct {
		name string
		subj ingest.Subject
		text string
		want []ingest.Fact
	}{
		{"zh location", zh, "张三(qq:10001)住在北京", []ingest.Fact{f("location", "location", "北京", "", "zh")}},
		// Spoken Chinese outside Mandarin is read in Mandarin's words, and the
		// value is given in the text's own.
		{"zh Cantonese like", zh, "张三(qq:10001)钟意打羽毛球", []ingest.Fact{f("hobby", "羽毛球", "打羽毛球", "positive", "zh")}},
		{"zh Cantonese words twice", zh, "张三(qq:10001)好钟意喺屋企煲汤", []ingest.Fact{f("hobby", "在家里煲汤", "喺屋企煲汤", "positive", "zh")}},
		{"zh a mood particle ends the clause", zh, "张三(qq:10001)是药师啦", []ingest.Fact{f("occupation", "occupation", "药师", "", "zh")}},
		{"zh Cantonese particle", zh, "张三(qq:10001)唔喜欢喝咖啡㗎", []ingest.Fact{f("drink", "咖啡", "咖啡", "negative", "zh")}},
		{"en a job without its article", en, "Alice is working as nurse at SGH", []ingest.Fact{
			f("occupation", "occupation", "nurse", "", "en"), f("workplace", "workplace", "SGH", "", "en")}},
		{"en a learner's progressive", en, "Alice is staying Tampines lah, working as nurse at SGH", []ingest.Fact{
			f("location", "location", "Tampines", "", "en"), f("occupation", "occupation", "nurse", "", "en"), f("workplace", "workplace", "SGH", "", "en")}},
		// A bot's labelled notes are read as sentences about the user.
		{"zh notes with labels", zh, "职业：麻醉科医生；宠物：一只边牧", []ingest.Fact{
			f("occupation", "occupation", "麻醉科医生", "", "zh"), f("pet", "边牧", "边牧", "", "zh")}},
		{"en notes with labels", en, "Notes: lactose intolerant; birthday: March 14", []ingest.Fact{
			f("allergy", "lactose", "lactose", "", "en"), f("birthday", "birthday", "March 14", "", "en")}},
		{"en notes of likes and dislikes", en, "likes: coffee; dislikes: cilantro", []ingest.Fact{
			f("drink", "coffee", "coffee", "positive", "en"), f("food", "cilantro", "cilantro", "negative", "en")}},
		// In notes of several labelled parts a Chinese label may stand
		// right before its value; a sentence that opens with a verb of the
		// labels is no note.
		{"zh notes with bare labels", zh, "用户档案：职业护士长；坐标青岛；爱好烘焙", []ingest.Fact{
			f("occupation", "occupation", "护士长", "", "zh"), f("location", "location", "青岛", "", "zh"), f("hobby", "烘焙", "烘焙", "positive", "zh")}},
		{"zh what one teaches, where", zh, "张三(qq:10001)在实验小学教数学", []ingest.Fact{
			f("workplace", "workplace", "实验小学", "", "zh"), f("occupation", "occupation", "教数学", "", "zh")}},
		{"zh the code one writes", zh, "张三(qq:10001)在大厂搬砖写前端", []ingest.Fact{f("occupation", "occupation", "前端", "", "zh")}},
		// A week laid out day by day is a routine; one day alone may be a plan.
		{"zh a week by its days", zh, "周二壁球，周四普拉提，周六去攀岩馆", []ingest.Fact{
			f("habit", "每周二壁球", "每周二壁球", "", "zh"), f("habit", "每周四普拉提", "每周四普拉提", "", "zh"), f("habit", "每周六去攀岩馆", "每周六去攀岩馆", "", "zh")}},
		{"zh one day is a plan", zh, "张三(qq:10001)周二去医院", nil},
		{"zh a list of foods one avoids", zh, "忌口的有这些：羊肉、海鲜、榴莲", []ingest.Fact{
			f("food", "羊肉", "羊肉", "negative", "zh"), f("food", "海鲜", "海鲜", "negative", "zh"), f("food", "榴莲", "榴莲", "negative", "zh")}},
		{"zh languages one gets by in", zh, "张三(qq:10001)闽南话和普通话都行", []ingest.Fact{
			f("language", "闽南话", "闽南话", "", "zh"), f("language", "普通话", "普通话", "", "zh")}},
		// A note reporting someone the user knows: theirs; a relative: the user's family.
		{"zh a colleague's allergy reported", zh, "用户提到他同事对海鲜过敏", nil},
		{"zh a brother reported", zh, "用户说他哥哥在新加坡做投行", []ingest.Fact{f("family", "哥哥", "哥哥", "", "zh")}},
		{"zh since a time", zh, "这个月起张三(qq:10001)开始生酮", []ingest.Fact{f("diet", "diet", "生酮", "", "zh")}},
		// Facts said in passing while asking for something: the relative one
		// looks after, a place since which something holds, a run-on.
		{"zh the one fetched from school", zh, "张三(qq:10001)每天下午接完儿子放学还得赶去菜市场", []ingest.Fact{
			f("habit", "每天下午接完儿子放学还得赶去菜市场", "每天下午接完儿子放学还得赶去菜市场", "", "zh"), f("family", "儿子", "儿子", "", "zh")}},
		{"en the one dropped off", en, "Alice drops Alice's son off at football every Saturday", []ingest.Fact{
			f("habit", "drops alice's son off football every saturday", "drops Alice's son off at football every Saturday", "", "en"), f("family", "son", "son", "", "en")}},
		{"zh since a move, said before the subject", zh, "自从三月份搬到厦门，张三(qq:10001)每天傍晚都去骑车", []ingest.Fact{
			f("location", "location", "厦门", "", "zh"), f("habit", "每天傍晚都去骑车", "每天傍晚都去骑车", "", "zh")}},
		{"en since a move, run on", en, "since Alice moved to Glasgow the bus system has been a nightmare", []ingest.Fact{f("location", "location", "Glasgow", "", "en")}},
		{"zh a son and a daughter", zh, "张三(qq:10001)有一儿一女", []ingest.Fact{f("family", "一儿一女", "一儿一女", "", "zh")}},
		{"zh a job with an English word before it", zh, "张三(qq:10001)是个 freelance 翻译", []ingest.Fact{f("occupation", "occupation", "freelance翻译", "", "zh")}},
		{"zh only one drink", zh, "张三(qq:10001)现在只喝白开水", []ingest.Fact{f("drink", "白开水", "白开水", "positive", "zh")}},
		{"en a diet from a day on", en, "Starting Monday Alice is doing 16:8 intermittent fasting", []ingest.Fact{f("diet", "diet", "intermittent fasting", "", "en")}},
		{"en years of living somewhere", en, "Alice just got a green card after eight years living in Chicago", []ingest.Fact{f("location", "location", "Chicago", "", "en")}},
		{"en a first week at work", en, "it's Alice's first week at Deloitte", []ingest.Fact{f("workplace", "workplace", "Deloitte", "", "en")}},
		{"en a year of study", en, "Alice is a second-year student at Leeds", []ingest.Fact{f("school", "school", "Leeds", "", "en")}},
		{"zh no one named but the child one takes to school", zh, "每天送女儿上学", []ingest.Fact{
			f("habit", "每天送女儿上学", "每天送女儿上学", "", "zh"), f("family", "女儿", "女儿", "", "zh")}},
		{"zh what one goes somewhere to learn", zh, "张三(qq:10001)每周去社区大学学油画", []ingest.Fact{
			f("habit", "每周去社区大学学油画", "每周去社区大学学油画", "", "zh"), f("learning", "油画", "油画", "", "zh")}},
		{"zh teaching at a school is no learning", zh, "张三(qq:10001)在一所中学教语文", []ingest.Fact{f("workplace", "workplace", "一所中学", "", "zh"), f("occupation", "occupation", "教语文", "", "zh")}},
		{"zh work in a language", zh, "张三(qq:10001)主要接日语的活儿", []ingest.Fact{f("language", "日语", "日语", "", "zh")}},
		{"en a sport by its verb and where", en, "these days Alice just swims laps at the leisure centre", []ingest.Fact{f("hobby", "swims", "swims", "positive", "en")}},
		{"en a sport with how often is a routine", en, "Alice swims every morning", []ingest.Fact{f("habit", "swims every morning", "swims every morning", "", "en")}},
		// The assistant speaking of itself states nothing of the user.
		{"zh the assistant of itself", zh, "作为AI我没有生日，不过我很喜欢听大家讲生日愿望", nil},
		{"zh cats at home, counted", zh, "三只橘猫在家称王", []ingest.Fact{f("pet", "橘猫", "橘猫", "", "zh")}},
		{"en a note reports the user's birthday", en, "The user mentioned their birthday is on March 14th", []ingest.Fact{f("birthday", "birthday", "March 14th", "", "en")}},
		{"en a note's label and a lower-case user", en, "Note: user is allergic to shellfish", []ingest.Fact{f("allergy", "shellfish", "shellfish", "", "en")}},
		{"en in a city now", en, "Alice is in Glasgow now", []ingest.Fact{f("location", "location", "Glasgow", "", "en")}},
		{"en in a city for a while", en, "Alice is in Paris for a conference", nil},
		{"en a week by its days", en, "Mondays are spin class, Wednesdays climbing", []ingest.Fact{
			f("habit", "mondays are spin class", "Mondays are spin class", "", "en"), f("habit", "wednesdays climbing", "Wednesdays climbing", "", "en")}},
		{"en Scots from", en, "Alice is fae Aberdeen", []ingest.Fact{f("hometown", "hometown", "Aberdeen", "", "en")}},
		{"en a trade by what one does", en, "Alice has been doing hair for twelve years", []ingest.Fact{f("occupation", "occupation", "hair", "", "en")}},
		{"en the language at home and at work", en, "Mostly Tagalog at home, English at work", []ingest.Fact{f("language", "tagalog", "Tagalog", "", "en"), f("language", "english", "English", "", "en")}},
		{"en slang before a like", en, "lowkey obsessed with pickleball", []ingest.Fact{f("hobby", "pickleball", "pickleball", "positive", "en")}},
		{"en we got married", en, "We got married in June", []ingest.Fact{f("marital", "marital", "married", "", "en")}},
		// A degree one is finishing at a school, or in a place; not in a subject.
		{"en finishing a degree at a school", en, "Alice is finishing a nursing degree at Monash", []ingest.Fact{f("school", "school", "Monash", "", "en")}},
		{"en a degree in a subject", en, "Alice is finishing a degree in history", nil},
		{"en a profile label", en, "Profile: nurse, lives in Leeds", []ingest.Fact{
			f("occupation", "occupation", "nurse", "", "en"), f("location", "location", "Leeds", "", "en")}},
		{"en a list's next items", en, "Alice is allergic to peanuts, shellfish and soy", []ingest.Fact{
			f("allergy", "peanuts", "peanuts", "", "en"), f("allergy", "shellfish", "shellfish", "", "en"), f("allergy", "soy", "soy", "", "en")}},
		{"en a list that goes on in other words", en, "Alice is allergic to peanuts, really bad", []ingest.Fact{f("allergy", "peanuts", "peanuts", "", "en")}},
		{"en a label that is no note", en, "Work: crazy busy today", nil},
		{"en a job of three words, where it is done", en, "Alice is a high school chemistry teacher in Boise", []ingest.Fact{
			f("occupation", "occupation", "high school chemistry teacher", "", "en"), f("location", "location", "Boise", "", "en")}},
		{"en a job in an employer", en, "Alice is working as software engineer in TCS", []ingest.Fact{f("occupation", "occupation", "software engineer", "", "en")}},
		{"zh ancestral home", zh, "张三(qq:10001)祖籍山东", []ingest.Fact{f("hometown", "hometown", "山东", "", "zh")}},
		{"en born and raised", en, "Alice was born and raised in Leeds", []ingest.Fact{f("hometown", "hometown", "Leeds", "", "en")}},
		{"en hails from", en, "Alice hails from Kerala", []ingest.Fact{f("hometown", "hometown", "Kerala", "", "en")}},
		{"en a big tea drinker", en, "Alice is a big tea drinker", []ingest.Fact{f("drink", "tea", "tea", "positive", "en")}},
		{"zh still single", zh, "张三(qq:10001)还单着", []ingest.Fact{f("marital", "marital", "单身", "", "zh")}},
		{"zh the date before 生日", zh, "张三(qq:10001)6月5号生日", []ingest.Fact{f("birthday", "birthday", "6月5号", "", "zh")}},
		{"zh opened a shop of one's own", zh, "张三(qq:10001)自己开了个奶茶店", []ingest.Fact{f("workplace", "workplace", "奶茶店", "", "zh")}},
		{"zh a second negated verb", zh, "张三(qq:10001)不吃香菜也不吃葱", []ingest.Fact{
			f("food", "香菜", "香菜", "negative", "zh"), f("food", "葱", "葱", "negative", "zh")}},
		{"en bought a house", en, "Alice just bought a house in Denver", []ingest.Fact{f("location", "location", "Denver", "", "en")}},
		{"zh what a drink does, without 就", zh, "张三(qq:10001)喝牛奶拉肚子", []ingest.Fact{f("drink", "牛奶", "牛奶", "negative", "zh")}},
		{"zh an allergy, without 就", zh, "张三(qq:10001)吃海鲜过敏", []ingest.Fact{f("allergy", "海鲜", "海鲜", "", "zh")}},
		{"zh cannot touch", zh, "张三(qq:10001)碰不了芒果", []ingest.Fact{f("food", "芒果", "芒果", "negative", "zh")}},
		{"en what a food does to one's throat", en, "Peanuts make Alice's throat swell up", []ingest.Fact{f("allergy", "peanuts", "Peanuts", "", "en")}},
		{"en got really into", en, "Alice got really into sourdough baking", []ingest.Fact{f("hobby", "sourdough baking", "sourdough baking", "positive", "en")}},
		{"zh a list with 、, an allergy each", zh, "张三(qq:10001)对花生、芒果过敏", []ingest.Fact{f("allergy", "花生", "花生", "", "zh"), f("allergy", "芒果", "芒果", "", "zh")}},
		{"zh settled", zh, "张三(qq:10001)目前定居昆明", []ingest.Fact{f("location", "location", "昆明", "", "zh")}},
		{"zh living with one's people", zh, "张三(qq:10001)和老婆孩子住在青岛", []ingest.Fact{
			f("location", "location", "青岛", "", "zh"), f("family", "老婆", "老婆", "", "zh")}},
		{"zh not a mouthful", zh, "张三(qq:10001)一口茄子都不吃", []ingest.Fact{f("food", "茄子", "茄子", "negative", "zh")}},
		// A bot reporting the user's words in Chinese.
		{"zh reported", zh, "张三(qq:10001)提到他在宁波港做集装箱调度", []ingest.Fact{
			f("workplace", "workplace", "宁波港", "", "zh"), f("occupation", "occupation", "集装箱调度", "", "zh")}},
		{"zh reported of a relative", zh, "张三(qq:10001)说他哥哥在新加坡做投行", []ingest.Fact{f("family", "哥哥", "哥哥", "", "zh")}},
		{"en pure vegetarian", en, "Alice is pure vegetarian", []ingest.Fact{f("diet", "diet", "vegetarian", "", "en")}},
		{"zh a gig is a job", zh, "张三(qq:10001)跑外卖跑了两年多", []ingest.Fact{f("occupation", "occupation", "跑外卖", "", "zh")}},
		{"en native place", en, "Alice's native place is Coimbatore", []ingest.Fact{f("hometown", "hometown", "Coimbatore", "", "en")}},
		{"en staying in", en, "Alice is staying in Pune only", []ingest.Fact{f("location", "location", "Pune", "", "en")}},
		{"en is having kids", en, "Alice is having two kids", []ingest.Fact{f("family", "kids", "kids", "", "en")}},
		{"en a month cut short", en, "Alice's bday is nov 3", []ingest.Fact{f("birthday", "birthday", "nov 3", "", "en")}},
		{"zh moved with time", zh, "张三(qq:10001)2026年2月搬到了上海工作", []ingest.Fact{f("location", "location", "上海", "", "zh")}},
		{"zh as of", zh, "张三(qq:10001)截至2026年3月4日住在深圳", []ingest.Fact{f("location", "location", "深圳", "", "zh")}},
		{"zh likes and chain", zh, "张三(qq:10001)喜欢吃辣，也喜欢打篮球", []ingest.Fact{
			f("food", "辣", "辣", "positive", "zh"), f("hobby", "篮球", "打篮球", "positive", "zh")}},
		{"zh dislike food", zh, "张三(qq:10001)不吃辣了", []ingest.Fact{f("food", "辣", "辣", "negative", "zh")}},
		{"zh occupation", zh, "张三(qq:10001)是一名程序员", []ingest.Fact{f("occupation", "occupation", "程序员", "", "zh")}},
		{"zh allergy", zh, "张三(qq:10001)对花生过敏", []ingest.Fact{f("allergy", "花生", "花生", "", "zh")}},
		{"zh pet", zh, "张三(qq:10001)养了一只猫", []ingest.Fact{f("pet", "猫", "猫", "", "zh")}},
		{"zh hometown", zh, "张三(qq:10001)老家在成都", []ingest.Fact{f("hometown", "hometown", "成都", "", "zh")}},
		{"zh language", zh, "张三(qq:10001)会说日语", []ingest.Fact{f("language", "日语", "日语", "", "zh")}},
		{"zh habit", zh, "张三(qq:10001)每天早上6点跑步", []ingest.Fact{f("habit", "每天早上跑步", "每天早上6点跑步", "", "zh")}},
		{"zh drink", zh, "张三(qq:10001)爱喝乌龙茶", []ingest.Fact{f("drink", "乌龙茶", "乌龙茶", "positive", "zh")}},
		{"zh family", zh, "张三(qq:10001)有一个女儿", []ingest.Fact{f("family", "女儿", "女儿", "", "zh")}},
		{"zh relative is only a relative", zh, "张三(qq:10001)的妹妹住在上海", []ingest.Fact{f("family", "妹妹", "妹妹", "", "zh")}},
		{"zh relative without 的", zh, "张三(qq:10001)室友每天熬夜，喜欢打游戏", nil},
		{"zh started learning after a date", zh, "张三(qq:10001)2026年3月5日开始学吉他了，每周三晚上上课", []ingest.Fact{
			f("learning", "吉他", "吉他", "", "zh"), f("habit", "每周三晚上上课", "每周三晚上上课", "", "zh")}},
		{"zh learnt for years", zh, "张三(qq:10001)学钢琴学了十年了", []ingest.Fact{f("learning", "钢琴", "钢琴", "", "zh")}},
		{"zh class", zh, "张三(qq:10001)报了个周六的游泳班", []ingest.Fact{f("learning", "游泳", "游泳", "", "zh")}},
		{"zh workplace then occupation", zh, "张三(qq:10001)在字节跳动做产品经理", []ingest.Fact{
			f("workplace", "workplace", "字节跳动", "", "zh"), f("occupation", "occupation", "产品经理", "", "zh")}},
		{"zh mixed text", zh, "张三(qq:10001)在 Google 上海办公室上班", []ingest.Fact{f("workplace", "workplace", "Google上海办公室", "", "zh")}},
		{"zh used to, then ellipsis", zh, "张三(qq:10001)原来不喝茶，这两年开始喝了", []ingest.Fact{f("drink", "茶", "茶", "positive", "zh")}},
		{"zh used to, now elsewhere", zh, "张三(qq:10001)曾经在华为工作过，截至2026年3月5日在小米", []ingest.Fact{f("workplace", "workplace", "小米", "", "zh")}},
		{"zh past alone", zh, "张三(qq:10001)以前住在北京", nil},
		{"zh we", zh, "张三(qq:10001)老公是做设计的，我们住在苏州", []ingest.Fact{
			f("family", "老公", "老公", "", "zh"), f("location", "location", "苏州", "", "zh")}},
		{"zh routine goes on", zh, "张三(qq:10001)每天通勤要一个半小时，坐地铁", []ingest.Fact{
			f("habit", "每天通勤要一个小，坐地铁", "每天通勤要一个半小时，坐地铁", "", "zh")}},
		{"zh making coffee is a hobby", zh, "张三(qq:10001)迷上了做手冲咖啡", []ingest.Fact{f("hobby", "做手冲咖啡", "做手冲咖啡", "positive", "zh")}},
		{"zh we give a language", zh, "我们家讲闽南话长大的", []ingest.Fact{f("language", "闽南话", "闽南话", "", "zh")}},
		{"zh school before 毕业的", zh, "张三(qq:10001)是北航毕业的", []ingest.Fact{f("school", "school", "北航", "", "zh")}},
		{"zh a major before 毕业的 is no school", zh, "张三(qq:10001)是计算机专业毕业的", nil},
		{"zh one-character kin", zh, "张三(qq:10001)哥比张三早出生十分钟", []ingest.Fact{f("family", "哥", "哥", "", "zh")}},
		{"zh a novel is no verb of saying", zh, "悬疑小说是张三(qq:10001)的命", []ingest.Fact{f("hobby", "悬疑小说", "悬疑小说", "positive", "zh")}},
		{"zh gig work by platform", zh, "白天上课晚上跑美团外卖", []ingest.Fact{f("workplace", "workplace", "美团", "", "zh")}},
		{"zh birthday without 是", zh, "张三(qq:10001)生日3月15号", []ingest.Fact{f("birthday", "birthday", "3月15号", "", "zh")}},
		{"zh birthday by month", zh, "张三(qq:10001)是九月份的生日", []ingest.Fact{f("birthday", "birthday", "九月份", "", "zh")}},
		{"zh birthday celebrated", zh, "张三(qq:10001)农历八月初三过生日", []ingest.Fact{f("birthday", "birthday", "农历八月初三", "", "zh")}},
		{"en birthday with an ordinal", en, "Alice's birthday's on March 3rd", []ingest.Fact{f("birthday", "birthday", "March 3rd", "", "en")}},
		{"en born on the nth of a month", en, "Alice was born on the 4th of July", []ingest.Fact{f("birthday", "birthday", "4th of July", "", "en")}},
		{"en turns an age on a day", en, "Alice turns 30 on May 5", []ingest.Fact{f("birthday", "birthday", "May 5", "", "en")}},
		{"en a birthday party is no birthday", en, "Alice's birthday party on May 5 was fun", nil},
		{"en a season ends the value", en, "Alice relocated to Austin last spring", []ingest.Fact{f("location", "location", "Austin", "", "en")}},
		{"en a verb ends the value", en, "Alice's apartment in Brooklyn is tiny", []ingest.Fact{f("location", "location", "Brooklyn", "", "en")}},
		{"en which relates, it does not ask", en, "Alice loves hiking which keeps her sane", []ingest.Fact{f("hobby", "hiking", "hiking", "positive", "en")}},
		{"en which after a verb of asking asks", en, "Alice asked which gym to join", nil},
		{"en a city's native", en, "Alice is a Seattle native", []ingest.Fact{f("hometown", "hometown", "Seattle", "", "en")}},
		{"en home is a place", en, "Home is Melbourne now", []ingest.Fact{f("location", "location", "Melbourne", "", "en")}},
		{"en home is no place", en, "Home is where the heart is", nil},
		{"en lessons taken for a while", en, "Alice has been taking piano lessons", []ingest.Fact{f("learning", "piano", "piano", "", "en")}},
		{"en a class for a subject", en, "Alice enrolled in a night class for accounting", []ingest.Fact{f("learning", "accounting", "accounting", "", "en")}},
		{"en a language picked up", en, "Trying to pick up Japanese", []ingest.Fact{f("learning", "japanese", "Japanese", "", "en")}},
		{"en a class on a day teaches nothing known", en, "Alice has a class on Monday", nil},
		{"en a food as a weakness", en, "Pizza is Alice's weakness", []ingest.Fact{f("food", "pizza", "Pizza", "positive", "en")}},
		{"en not a big fan of a food", en, "Alice is not a big fan of olives", []ingest.Fact{f("food", "olives", "olives", "negative", "en")}},
		{"en gone vegan", en, "Alice has gone vegan", []ingest.Fact{f("diet", "diet", "vegan", "", "en")}},
		{"zh years at work", zh, "张三(qq:10001)在北京上班三年了", []ingest.Fact{f("workplace", "workplace", "北京", "", "zh")}},
		{"zh fell into a hobby", zh, "张三(qq:10001)入了摄影的坑", []ingest.Fact{f("hobby", "摄影", "摄影", "positive", "zh")}},
		{"zh bought a camera is no hobby", zh, "张三(qq:10001)入了一台相机", nil},
		{"zh not a bit of", zh, "张三(qq:10001)一点辣都不能吃", []ingest.Fact{f("food", "辣", "辣", "negative", "zh")}},
		{"zh not a bit tired", zh, "张三(qq:10001)一点都不累", nil},
		{"zh a food put first and refused", zh, "榴莲张三(qq:10001)是真的接受不了", []ingest.Fact{f("food", "榴莲", "榴莲", "negative", "zh")}},
		{"zh a drink that keeps one going", zh, "奶茶是张三(qq:10001)的续命水", []ingest.Fact{f("drink", "奶茶", "奶茶", "positive", "zh")}},
		{"zh gave up drinking", zh, "张三(qq:10001)戒酒了", []ingest.Fact{f("drink", "酒", "酒", "negative", "zh")}},
		{"zh a twin brother", zh, "张三(qq:10001)有个双胞胎弟弟", []ingest.Fact{f("family", "双胞胎弟弟", "双胞胎弟弟", "", "zh")}},
		{"zh years in a job", zh, "张三(qq:10001)当护士十年了", []ingest.Fact{f("occupation", "occupation", "护士", "", "zh")}},
		{"en the head of a kitchen", en, "Alice is the head chef at a ramen shop", []ingest.Fact{
			f("occupation", "occupation", "head chef", "", "en"), f("workplace", "workplace", "a ramen shop", "", "en")}},
		{"en the best is no job", en, "Alice is the only one who cares", nil},
		{"en freelance as", en, "Alice freelances as a translator", []ingest.Fact{f("occupation", "occupation", "translator", "", "en")}},
		{"en stay at home without hyphens", en, "Alice is a stay at home mom", []ingest.Fact{f("occupation", "occupation", "stay at home mom", "", "en")}},
		{"zh graduated from", zh, "张三(qq:10001)刚从浙大毕业", []ingest.Fact{f("school", "school", "浙大", "", "zh")}},
		{"en goes to a named college", en, "Alice goes to Boston College", []ingest.Fact{f("school", "school", "Boston College", "", "en")}},
		{"en goes to the gym is no school", en, "Alice goes to the gym", nil},
		{"en a twin", en, "Alice is a twin", []ingest.Fact{f("family", "twin", "twin", "", "en")}},
		{"en expecting a baby", en, "Alice is expecting a baby girl", []ingest.Fact{f("family", "baby", "baby", "", "en")}},
		{"zh signed up at a driving school", zh, "张三(qq:10001)报了驾校", []ingest.Fact{f("learning", "驾校", "驾校", "", "zh")}},
		{"zh learns from an online course", zh, "张三(qq:10001)在上网课学剪辑", []ingest.Fact{f("learning", "剪辑", "剪辑", "", "zh")}},
		{"zh goes to a class", zh, "张三(qq:10001)周末去上围棋课", []ingest.Fact{f("learning", "围棋", "围棋", "", "zh")}},
		{"zh a class over is no subject", zh, "张三(qq:10001)上完课了", nil},
		{"zh a space ends a clause", zh, "刚从成都搬来深圳 在南山一家游戏公司做测试", []ingest.Fact{
			f("location", "location", "深圳", "", "zh"), f("workplace", "workplace", "南山一家游戏公司", "", "zh"), f("occupation", "occupation", "测试", "", "zh")}},
		{"zh the sender named as an object", zh, "吃素快五年了 别再给张三(qq:10001)推荐红烧肉了", []ingest.Fact{f("diet", "diet", "素食", "", "zh")}},
		{"zh others in a later clause", zh, "离了两年了 闺女判给张三(qq:10001)了", []ingest.Fact{
			f("marital", "marital", "离异", "", "zh"), f("family", "闺女", "闺女", "", "zh")}},
		{"zh a gig by platform", zh, "在美团跑外卖 一天五六十单", []ingest.Fact{f("workplace", "workplace", "美团", "", "zh"), f("occupation", "occupation", "跑外卖", "", "zh")}},
		{"en no drink for me", en, "no alcohol for Alice (qq:20002), 6 yrs sober", []ingest.Fact{f("drink", "alcohol", "alcohol", "negative", "en")}},
		{"en from a town in a state", en, "from a tiny farm town in Iowa originally", []ingest.Fact{f("hometown", "hometown", "Iowa", "", "en")}},
		{"en the year at a school", en, "2nd yr at UCLA, bio major", []ingest.Fact{f("school", "school", "UCLA", "", "en")}},
		{"en a place said to be home", en, "Lisbon has been home for two years", []ingest.Fact{f("location", "location", "Lisbon", "", "en")}},
		{"en tastes like soap", en, "Cilantro tastes like soap to Alice (qq:20002)", []ingest.Fact{f("food", "cilantro", "Cilantro", "negative", "en")}},
		{"en year at a school", en, "Third year at Ohio State", []ingest.Fact{f("school", "school", "Ohio State", "", "en")}},
		{"en has been doing a diet", en, "Alice (qq:20002) has been doing keto for the past year", []ingest.Fact{f("diet", "diet", "keto", "", "en")}},
		{"zh eating brings an allergy on", zh, "张三(qq:10001)一吃芒果就过敏", []ingest.Fact{f("allergy", "芒果", "芒果", "", "zh")}},
		{"zh an allergy takes up the food before it", zh, "张三(qq:10001)不能吃虾，会过敏", []ingest.Fact{
			f("food", "虾", "虾", "negative", "zh"), f("allergy", "虾", "虾", "", "zh")}},
		{"zh what one lives on", zh, "张三(qq:10001)每天靠咖啡续命", []ingest.Fact{f("drink", "咖啡", "咖啡", "positive", "zh")}},
		{"en an allergy named by its thing", en, "Alice (qq:20002)'s shellfish allergy is pretty bad", []ingest.Fact{f("allergy", "shellfish", "shellfish", "", "en")}},
		{"en hives from eating", en, "Alice (qq:20002) breaks out in hives whenever Alice eats strawberries", []ingest.Fact{f("allergy", "strawberries", "strawberries", "", "en")}},
		{"en never touches a drink", en, "Alice (qq:20002) never touches soda", []ingest.Fact{f("drink", "soda", "soda", "negative", "en")}},
		{"zh preparing for an exam is no plan", zh, "张三(qq:10001)在准备雅思，目标七分", []ingest.Fact{f("learning", "雅思", "雅思", "", "zh")}},
		{"zh a plan stays one", zh, "张三(qq:10001)准备2027年换工作", nil},
		{"zh a certification by its title", zh, "要考心理咨询师", []ingest.Fact{f("learning", "心理咨询师", "心理咨询师", "", "zh")}},
		{"zh could eat it for a week", zh, "酸菜鱼张三(qq:10001)能连吃一个礼拜", []ingest.Fact{f("food", "酸菜鱼", "酸菜鱼", "positive", "zh")}},
		{"en could eat it every day", en, "Alice (qq:20002) could eat mochi every day", []ingest.Fact{f("food", "mochi", "mochi", "positive", "en")}},
		{"en the sender only as a possessive", en, "studying for Alice (qq:20002)'s real estate license", []ingest.Fact{f("learning", "real estate license", "real estate license", "", "en")}},
		{"en an inverted clause stays inverted", en, "Pizza is Alice (qq:20002)'s comfort food", []ingest.Fact{f("food", "pizza", "Pizza", "positive", "en")}},
		{"zh third person", zh, "他住在广州", nil},
		{"zh mood", zh, "张三(qq:10001)2026年3月4日很开心", nil},
		{"zh feeling", zh, "张三(qq:10001)觉得有点累", nil},
		{"zh joke", zh, "张三(qq:10001)住在月球，哈哈", nil},
		{"zh joke corrected", zh, "张三(qq:10001)住在月球，哈哈开玩笑的，其实张三(qq:10001)住在北京", []ingest.Fact{f("location", "location", "北京", "", "zh")}},
		{"zh correction before the joke", zh, "其实张三(qq:10001)住在月球，开玩笑的", nil},
		{"zh hypothetical", zh, "如果张三(qq:10001)住在上海就好了", nil},
		{"zh wish", zh, "张三(qq:10001)想养一只狗", nil},
		{"zh question", zh, "张三(qq:10001)住在北京吗", nil},
		{"zh other subject breaks the chain", zh, "张三(qq:10001)的同事李四是医生，喜欢钓鱼", nil},

		{"en location", en, "Alice (qq:20002) lives in New York with her husband", []ingest.Fact{
			f("location", "location", "New York", "", "en"), f("family", "husband", "husband", "", "en")}},
		{"en moved", en, "Alice (qq:20002) moved to Berlin in February 2026", []ingest.Fact{f("location", "location", "Berlin", "", "en")}},
		{"en likes routed to food", en, "Alice (qq:20002) loves spicy food", []ingest.Fact{f("food", "spicy food", "spicy food", "positive", "en")}},
		{"en stopped eating", en, "Alice (qq:20002) stopped eating spicy food", []ingest.Fact{f("food", "spicy food", "spicy food", "negative", "en")}},
		{"en hobby and chain", en, "Alice (qq:20002) enjoys hiking and works as a nurse", []ingest.Fact{
			f("hobby", "hiking", "hiking", "positive", "en"), f("occupation", "occupation", "nurse", "", "en")}},
		{"en occupation", en, "Alice (qq:20002) is a software engineer", []ingest.Fact{f("occupation", "occupation", "software engineer", "", "en")}},
		{"en allergy", en, "Alice (qq:20002) is allergic to peanuts", []ingest.Fact{f("allergy", "peanuts", "peanuts", "", "en")}},
		{"en pet", en, "Alice (qq:20002) has two cats", []ingest.Fact{f("pet", "cat", "cat", "", "en")}},
		{"en hometown", en, "Alice (qq:20002) grew up in Lyon", []ingest.Fact{f("hometown", "hometown", "Lyon", "", "en")}},
		{"en speaks", en, "Alice (qq:20002) speaks French", []ingest.Fact{f("language", "french", "French", "", "en")}},
		{"en habit", en, "Alice (qq:20002) usually goes running on Sundays", []ingest.Fact{f("habit", "usually goes running on sundays", "usually goes running on Sundays", "", "en")}},
		{"en vegetarian", en, "Alice (qq:20002) is vegetarian", []ingest.Fact{f("diet", "diet", "vegetarian", "", "en")}},
		{"en relative", en, "Alice (qq:20002)'s sister lives in Paris", []ingest.Fact{f("family", "sister", "sister", "", "en")}},
		{"en friend", en, "Alice (qq:20002)'s roommate plays drums every night", nil},
		{"en workplace as occupation", en, "Alice (qq:20002) works at Stripe as a backend engineer", []ingest.Fact{
			f("workplace", "workplace", "Stripe", "", "en"), f("occupation", "occupation", "backend engineer", "", "en")}},
		{"en used to, now it", en, "Alice (qq:20002) used to hate running, as of 2026-03-05 Alice loves it", []ingest.Fact{
			f("hobby", "running", "running", "positive", "en")}},
		{"en list", en, "Alice (qq:20002) loves hiking and camping", []ingest.Fact{
			f("hobby", "hiking", "hiking", "positive", "en"), f("hobby", "camping", "camping", "positive", "en")}},
		{"en occupation at a workplace", en, "Alice (qq:20002) is a nurse at St. Mary's hospital", []ingest.Fact{
			f("occupation", "occupation", "nurse", "", "en"), f("workplace", "workplace", "St. Mary's hospital", "", "en")}},
		{"en student at a school", en, "Alice (qq:20002) is a PhD student at MIT", []ingest.Fact{
			f("occupation", "occupation", "PhD student", "", "en"), f("school", "school", "MIT", "", "en")}},
		{"en loves to", en, "Alice (qq:20002) loves to travel", []ingest.Fact{f("hobby", "travel", "to travel", "positive", "en")}},
		{"en never on weekdays", en, "Alice (qq:20002) never drinks on weekdays", []ingest.Fact{f("habit", "never drinks on weekdays", "never drinks on weekdays", "", "en")}},
		{"zh word fallback", zh, "张三(qq:10001)晚饭经常吃点水果", []ingest.Fact{f("habit", "晚饭经常吃水果", "晚饭经常吃点水果", "", "zh")}},
		{"zh negated word fallback", zh, "张三(qq:10001)胃不好，所以不怎么敢吃辣椒", []ingest.Fact{f("food", "辣椒", "辣椒", "negative", "zh")}},
		{"zh wish is no dislike", zh, "张三(qq:10001)特别想吃火锅", nil},
		{"en taking a class", en, "Alice (qq:20002) is taking a pottery class on Saturdays", []ingest.Fact{f("learning", "pottery", "pottery", "", "en")}},
		{"en third person", en, "Bob lives in Paris", nil},
		{"en name prefix", ingest.Subject{Name: "Ann"}, "Anna lives in Paris", nil},
		{"en mood", en, "Alice (qq:20002) is so happy on 2026-03-04", nil},
		{"en feels", en, "Alice (qq:20002) feels like a teacher today", nil},
		{"en joke", en, "Alice (qq:20002) lives on Mars, just kidding", nil},
		{"en joke corrected", en, "Alice (qq:20002) lives on Mars, jk, seriously though Alice (qq:20002) lives in Leeds", []ingest.Fact{f("location", "location", "Leeds", "", "en")}},
		{"en hypothetical", en, "If Alice (qq:20002) lived in Rome she would learn Italian", nil},
		{"en question", en, "Does Alice (qq:20002) live in Rome?", nil},
		{"en maybe", en, "Alice (qq:20002) might move to Rome", nil},
		{"en would", en, "Alice (qq:20002) would love to live in Paris", nil},
		{"unknown subject", ingest.Subject{}, "我住在北京", nil},
		{"zh topic object", zh, "咖啡张三(qq:10001)每天都要喝两杯", []ingest.Fact{f("drink", "咖啡", "咖啡", "positive", "zh")}},
		{"zh topic time", zh, "周末张三(qq:10001)一般去爬山", []ingest.Fact{f("habit", "周末一般去爬山", "周末一般去爬山", "", "zh")}},
		{"zh topic said by another", zh, "助手建议张三(qq:10001)多喝水", nil},
		{"en subject as object", en, "Peanuts give Alice (qq:20002) hives", []ingest.Fact{f("allergy", "peanuts", "Peanuts", "", "en")}},
		{"en subject as object, said by another", en, "The assistant said peanuts give Alice (qq:20002) hives", nil},
		{"zh place narrowed", zh, "张三(qq:10001)住在成都，在高新区", []ingest.Fact{f("location", "location", "成都高新区", "", "zh")}},
		{"zh place changed", zh, "张三(qq:10001)家在郑州，截至2026年3月4日在北京", []ingest.Fact{f("location", "location", "郑州", "", "zh"), f("location", "location", "北京", "", "zh")}},
		{"en subordinate clause", en, "Boston was home until Alice (qq:20002) moved to Denver", []ingest.Fact{f("location", "location", "Denver", "", "en")}},
		{"en reported speech", en, "Alice (qq:20002) mentioned she's a paralegal", []ingest.Fact{f("occupation", "occupation", "paralegal", "", "en")}},
		{"en plural pet", en, "Alice (qq:20002) has three rabbits", []ingest.Fact{f("pet", "rabbit", "rabbit", "", "en")}},
		{"zh after a time clause", zh, "张三(qq:10001)退伍以后一直做保安", []ingest.Fact{f("occupation", "occupation", "保安", "", "zh")}},
		{"en nationality", en, "Alice (qq:20002) is originally Mexican", []ingest.Fact{f("hometown", "hometown", "Mexico", "", "en")}},
		{"zh names no one", zh, "从小在广州长大", []ingest.Fact{f("hometown", "hometown", "广州", "", "zh")}},
		{"zh names no one, goes on", zh, "2026年2月刚搬到苏州，在幼儿园当老师", []ingest.Fact{
			f("location", "location", "苏州", "", "zh"), f("workplace", "workplace", "幼儿园", "", "zh"), f("occupation", "occupation", "老师", "", "zh")}},
		{"zh names no one, 吉他 is no one", zh, "最近在学吉他", []ingest.Fact{f("learning", "吉他", "吉他", "", "zh")}},
		{"zh names a colleague", zh, "同事刚搬到苏州", nil},
		// A question after a statement leaves the statement the sender's.
		{"zh names no one, then asks", zh, "刚搬到苏州，房租贵吗", []ingest.Fact{f("location", "location", "苏州", "", "zh")}},
		{"zh names no one and asks first", zh, "房租贵吗，刚搬到苏州", nil},
		{"zh asks without a mark", zh, "在苏州住了多久", nil},
		{"en names no one", en, "Been living in Leeds for two years", []ingest.Fact{f("location", "location", "Leeds", "", "en")}},
		{"en names no one, gerund", en, "Currently working as a pharmacist", []ingest.Fact{f("occupation", "occupation", "pharmacist", "", "en")}},
		{"en names no one, no verb", en, "Allergic to shellfish, found out the hard way", []ingest.Fact{f("allergy", "shellfish", "shellfish", "", "en")}},
		{"en names someone", en, "Tom moved to Leeds", nil},
		{"en names company only", en, "Play basketball every Sunday with some coworkers", []ingest.Fact{
			f("habit", "plays basketball every sunday with some coworkers", "Plays basketball every Sunday with some coworkers", "", "en")}},
		{"en works as an unknown job", en, "Alice (qq:20002) works as a sonographer at a women's clinic", []ingest.Fact{
			f("occupation", "occupation", "sonographer", "", "en"), f("workplace", "workplace", "a women's clinic", "", "en")}},
		{"en works as a team", en, "Alice (qq:20002) works as a team with Bob", nil},
		{"en what a food does", en, "Onions give Alice (qq:20002) heartburn", []ingest.Fact{f("food", "onions", "Onions", "negative", "en")}},
		{"en a chat word ends the value", en, "Alice (qq:20002) can't stand coffee tbh", []ingest.Fact{f("drink", "coffee", "coffee", "negative", "en")}},
		{"en names a pronoun", en, "Moved to Leeds with her", nil},
		{"zh a preamble before a colon", zh, "先自我介绍一下：张三(qq:10001)在武汉一家医院当护士", []ingest.Fact{
			f("workplace", "workplace", "武汉一家医院", "", "zh"), f("occupation", "occupation", "护士", "", "zh")}},
		{"zh an emoji before the subject", zh, "🥱 张三(qq:10001)在武汉一家医院当护士", []ingest.Fact{
			f("workplace", "workplace", "武汉一家医院", "", "zh"), f("occupation", "occupation", "护士", "", "zh")}},
		{"zh an emoji ends a clause", zh, "刚下夜班 🥱 张三(qq:10001)住在汉口", []ingest.Fact{f("location", "location", "汉口", "", "zh")}},
		{"zh a preamble before an ellipsis", zh, "说正事…张三(qq:10001)住在汉口", []ingest.Fact{f("location", "location", "汉口", "", "zh")}},
		{"en a preamble before a dash", en, "fyi for context — Alice (qq:20002) works as a nurse", []ingest.Fact{
			f("occupation", "occupation", "nurse", "", "en")}},
		{"en a laugh after a plain fact", en, "Alice (qq:20002) hates cilantro with a passion 😂 tastes like soap", []ingest.Fact{
			f("food", "cilantro", "cilantro", "negative", "en")}},
		{"zh a laugh before a plain fact", zh, "哈哈哈 张三(qq:10001)养了只柯基 超级贪吃", []ingest.Fact{f("pet", "柯基", "柯基", "", "zh")}},
		{"zh a laugh makes a joke of what one claims to be", zh, "张三(qq:10001)是秦始皇，哈哈哈", nil},
		{"en a laugh makes a joke of what one claims to be", en, "lol Alice (qq:20002) is a wizard", nil},
		{"en a laugh is no word of a value", en, "Alice (qq:20002) never cooks lol, takeout every night", []ingest.Fact{
			f("habit", "never cooks", "never cooks", "", "en"), f("habit", "takeout every night", "takeout every night", "", "en")}},
		{"en words that open a clause", en, "ugh mondays. anyway fyi Alice (qq:20002) works at Google", []ingest.Fact{
			f("workplace", "workplace", "Google", "", "en")}},
		{"zh words that open a clause", zh, "话说 张三(qq:10001)吃素三年了", []ingest.Fact{f("diet", "diet", "素食", "", "zh")}},
		{"zh a one-liner that laughs is a joke", zh, "张三(qq:10001)住在月球，哈哈", nil},
		{"zh a count of pets without a verb", zh, "张三(qq:10001)家里两只猫", []ingest.Fact{f("pet", "猫", "猫", "", "zh")}},
		{"zh giving up sugar is a diet", zh, "张三(qq:10001)戒糖第二周", []ingest.Fact{f("diet", "diet", "糖", "", "zh")}},
		{"zh a job said by its field", zh, "张三(qq:10001)在杭州做前端", []ingest.Fact{
			f("workplace", "workplace", "杭州", "", "zh"), f("occupation", "occupation", "前端", "", "zh")}},
		{"en and counting is no item", en, "6 yrs sober and counting", []ingest.Fact{f("drink", "alcohol", "alcohol", "negative", "en")}},
		{"zh list after a noun", zh, "张三(qq:10001)爱玩的几样：桌游、剧本杀", []ingest.Fact{
			f("hobby", "桌游", "桌游", "positive", "zh"), f("hobby", "剧本杀", "剧本杀", "positive", "zh")}},
		{"zh living, then where", zh, "张三(qq:10001)和男朋友合租，在广州天河", []ingest.Fact{
			f("family", "男朋友", "男朋友", "", "zh"), f("location", "location", "广州天河", "", "zh")}},
		{"zh grade after the place", zh, "张三(qq:10001)在南京读大三", []ingest.Fact{f("school", "school", "南京", "", "zh")}},
		{"zh time clause from", zh, "张三(qq:10001)从大学开始就在重庆生活了", []ingest.Fact{f("location", "location", "重庆", "", "zh")}},
		{"en possessive before the value", en, "Alice drinks Alice's tea with no sugar", []ingest.Fact{f("drink", "tea", "tea", "positive", "en")}},
		{"en quitting a job is no hobby", en, "Alice quit Alice's job at the bank", nil},
		{"en a time before the subject", en, "Most evenings Alice plays a bit of poker online", []ingest.Fact{
			f("habit", "plays a bit of poker online most evenings", "plays a bit of poker online most evenings", "", "en")}},
		{"en only a time before the subject", en, "Poker Alice plays most evenings", nil},
		{"en weekday nights before the subject", en, "Tuesday and Thursday nights Alice is in a welding class at the community college", []ingest.Fact{
			f("learning", "welding", "welding", "", "en")}},
		{"zh learning online", zh, "张三(qq:10001)在网上跟着B站自学剪辑", []ingest.Fact{f("learning", "剪辑", "剪辑", "", "zh")}},
		{"zh a training course", zh, "张三(qq:10001)参加了一个咖啡师培训", []ingest.Fact{f("learning", "咖啡师", "咖啡师", "", "zh")}},
		{"en a weekday's mornings", en, "Alice does pottery on Saturday mornings", []ingest.Fact{
			f("habit", "does pottery on saturday mornings", "does pottery on Saturday mornings", "", "en")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ingest.ExtractFacts(tt.text, tt.subj, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ExtractFacts(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// BenchmarkExtractFacts extracts five facts from one event, with the
// word lists only (lists) and with WordNet and the dictionary (kinds),
// and one event whose values only the kinds know (kinds-only).
func BenchmarkExtractFacts(b *testing.B) {
	subj := ingest.Subject{ID: "qq:10001", Name: "张三"}
	text := "张三(qq:10001)2026年2月搬到了上海，是一名程序员，喜欢吃辣，也喜欢打篮球，每天早上6点跑步"
	other := "张三(qq:10001)家里有只荷兰猪，最喜欢的水果是山竹，会吹口琴"
	for _, bc := range []struct {
		name  string
		text  string
		kinds bool
		want  int
	}{{"lists", text, false, 5}, {"kinds", text, true, 5}, {"kinds-only", other, true, 3}} {
		b.Run(bc.name, func(b *testing.B) {
			var kinds *ingest.Kinds
			if bc.kinds {
				kinds = testKinds(b)
			}
			b.ReportAllocs()
			for b.Loop() {
				if got := len(ingest.ExtractFacts(bc.text, subj, kinds)); got != bc.want {
					b.Fatalf("%d facts, want %d", got, bc.want)
				}
			}
		})
	}
}

// TestExtractFactsKinds: with WordNet and the dictionary a frame that wants
// a food, a drink, an animal, a language or a sport takes any such thing,
// not only a word of its list; without them it takes its list's words only.
// Words that name no thing (a gloss that is an adjective, a verb, the kind
// itself) are not taken.
func TestExtractFactsKinds(t *testing.T) {
	zh := ingest.Subject{ID: "qq:10001", Name: "张三"}
	en := ingest.Subject{ID: "qq:20002", Name: "Alice"}
	f := func(cat, slot, value, pol, lang string) ingest.Fact {
		return ingest.Fact{Category: cat, Slot: slot, Value: value, Polarity: pol, Lang: lang}
	}
	kinds := testKinds(t)
	tests := []struct {
		name       string
		subj       ingest.Subject
		text       string
		with, none []ingest.Fact
	}{
		{"zh an animal after 有只", zh, "张三(qq:10001)家里有只荷兰猪，特别能吃",
			[]ingest.Fact{f("pet", "荷兰猪", "荷兰猪", "", "zh")}, nil},
		// Traditional characters are read simplified (the dictionary's), and
		// Cantonese 食, 饮 and 系 as 吃, 喝 and 是 where they stand alone; the
		// value keeps the text's characters, the slot is simplified.
		{"zh traditional Cantonese", zh, "張三(qq:10001)好鍾意食虱目魚", []ingest.Fact{f("food", "虱目鱼", "虱目魚", "positive", "zh")}, nil},
		{"zh a gig in a city", zh, "张三(qq:10001)在成都跑滴滴", []ingest.Fact{f("location", "location", "成都", "", "zh"), f("occupation", "occupation", "跑滴滴", "", "zh")},
			[]ingest.Fact{f("workplace", "workplace", "成都", "", "zh"), f("occupation", "occupation", "跑滴滴", "", "zh")}},
		{"zh sensitive to a food", zh, "张三(qq:10001)对虾敏感，一吃就痒", []ingest.Fact{f("allergy", "虾", "虾", "", "zh")}, []ingest.Fact{f("allergy", "虾", "虾", "", "zh")}},
		{"zh sensitive to noise", zh, "张三(qq:10001)对声音很敏感", nil, nil},
		// 是X的 says where one is from when X is a place, all of it.
		{"zh from a place", zh, "张三(qq:10001)是齐齐哈尔的", []ingest.Fact{f("hometown", "hometown", "齐齐哈尔", "", "zh")}, nil},
		{"zh of a company in a place", zh, "张三(qq:10001)是北京的一家公司的", nil, nil},
		{"zh Cantonese most-liked drink", zh, "张三(qq:10001)至钟意饮鸳鸯", []ingest.Fact{f("drink", "鸳鸯", "鸳鸯", "positive", "zh")},
			[]ingest.Fact{f("hobby", "饮鸳鸯", "饮鸳鸯", "positive", "zh")}},
		{"zh Cantonese copula", zh, "张三(qq:10001)系香港人", []ingest.Fact{f("hometown", "hometown", "香港", "", "zh")}, nil},
		{"zh 素食 is a word", zh, "张三(qq:10001)系素食者", []ingest.Fact{f("diet", "diet", "素食", "", "zh")}, nil},
		{"zh a fruit is a food", zh, "张三(qq:10001)最喜欢的水果是山竹",
			[]ingest.Fact{f("food", "山竹", "山竹", "positive", "zh")}, []ingest.Fact{f("hobby", "山竹", "山竹", "positive", "zh")}},
		{"zh a sport before the years", zh, "张三(qq:10001)打羽毛球十来年了",
			[]ingest.Fact{f("hobby", "羽毛球", "羽毛球", "positive", "zh")}, nil},
		{"zh a gloss that is an adjective", zh, "张三(qq:10001)母语是粤语，普通话讲得一般",
			[]ingest.Fact{f("language", "粤语", "粤语", "", "zh")}, []ingest.Fact{f("language", "粤语", "粤语", "", "zh")}},
		{"en a drink cut out", en, "Alice has cut out cocoa",
			[]ingest.Fact{f("drink", "cocoa", "cocoa", "negative", "en")}, []ingest.Fact{f("hobby", "cocoa", "cocoa", "negative", "en")}},
		{"en a drink said to be a hard no", en, "coffee is a hard no",
			[]ingest.Fact{f("drink", "coffee", "coffee", "negative", "en")}, []ingest.Fact{f("drink", "coffee", "coffee", "negative", "en")}},
		{"en an animal not in the list", en, "Alice keeps a pet iguana named Rex",
			[]ingest.Fact{f("pet", "iguana", "iguana", "", "en")}, nil},
		{"zh an instrument played", zh, "张三(qq:10001)会吹口琴，自学的",
			[]ingest.Fact{f("hobby", "口琴", "口琴", "positive", "zh")}, nil},
		{"zh a game played once is no hobby", zh, "张三(qq:10001)昨天打了一场球，腿到现在还疼", nil, nil},
		{"en a game played", en, "Alice has been playing a lot of chess online",
			[]ingest.Fact{f("hobby", "chess", "chess", "positive", "en")}, nil},
		{"en espresso is a drink, not a food", en, "Alice lives on espresso, like four shots a day",
			[]ingest.Fact{f("drink", "espresso", "espresso", "positive", "en")}, []ingest.Fact{f("drink", "espresso", "espresso", "positive", "en")}},
		{"en pets that share the home", en, "Two retired racing greyhounds share Alice's flat",
			[]ingest.Fact{f("pet", "greyhounds", "greyhounds", "", "en")}, nil},
		{"en a job WordNet knows", en, "Alice is a locksmith",
			[]ingest.Fact{f("occupation", "occupation", "locksmith", "", "en")}, nil},
		{"en a job after has been", en, "Alice has been an electrician for about fifteen years",
			[]ingest.Fact{f("occupation", "occupation", "electrician", "", "en")}, nil},
		{"en a job far into the clause is none", en, "Alice is a big fan of chef Ramsay",
			[]ingest.Fact{f("hobby", "chef ramsay", "chef Ramsay", "positive", "en")}, []ingest.Fact{f("hobby", "chef ramsay", "chef Ramsay", "positive", "en")}},
		{"en a game far into the clause", en, "Alice plays in a rec soccer league",
			[]ingest.Fact{f("hobby", "soccer", "soccer", "positive", "en")}, nil},
		{"zh what a food does", zh, "张三(qq:10001)一吃辣就胃疼",
			[]ingest.Fact{f("food", "辣", "辣", "negative", "zh")}, []ingest.Fact{f("food", "辣", "辣", "negative", "zh")}},
		{"zh a listed word inside a dictionary word", zh, "张三(qq:10001)吃生鱼片会拉肚子",
			[]ingest.Fact{f("food", "生鱼片", "生鱼片", "negative", "zh")}, []ingest.Fact{f("food", "鱼", "鱼", "negative", "zh")}},
		{"zh what a drink does, the drink first", zh, "豆浆张三(qq:10001)一喝肚子就胀",
			[]ingest.Fact{f("drink", "豆浆", "豆浆", "negative", "zh")}, []ingest.Fact{f("drink", "豆浆", "豆浆", "negative", "zh")}},
		// A place the dictionary knows is where one lives, not a workplace;
		// a place before a workplace is both, and a district after a city
		// said before narrows it.
		{"zh a city where one works", zh, "张三(qq:10001)在成都当护士",
			[]ingest.Fact{f("location", "location", "成都", "", "zh"), f("occupation", "occupation", "护士", "", "zh")},
			[]ingest.Fact{f("workplace", "workplace", "成都", "", "zh"), f("occupation", "occupation", "护士", "", "zh")}},
		{"zh a city before a workplace", zh, "张三(qq:10001)在广州一家粤菜馆当厨师",
			[]ingest.Fact{f("workplace", "workplace", "广州一家粤菜馆", "", "zh"), f("occupation", "occupation", "厨师", "", "zh"), f("location", "location", "广州", "", "zh")},
			[]ingest.Fact{f("workplace", "workplace", "广州一家粤菜馆", "", "zh"), f("occupation", "occupation", "厨师", "", "zh")}},
		{"zh a district after the city", zh, "张三(qq:10001)刚搬来深圳 在南山一家游戏公司做测试",
			[]ingest.Fact{f("location", "location", "深圳南山", "", "zh"), f("workplace", "workplace", "南山一家游戏公司", "", "zh"), f("occupation", "occupation", "测试", "", "zh")},
			[]ingest.Fact{f("location", "location", "深圳", "", "zh"), f("workplace", "workplace", "南山一家游戏公司", "", "zh"), f("occupation", "occupation", "测试", "", "zh")}},
		{"en a job of nouns before the one WordNet knows", en, "Alice is an air traffic controller",
			[]ingest.Fact{f("occupation", "occupation", "air traffic controller", "", "en")}, nil},
		{"en drink is a verb here", en, "Alice is a vegetarian and Alice doesn't drink",
			[]ingest.Fact{f("diet", "diet", "vegetarian", "", "en")}, []ingest.Fact{f("diet", "diet", "vegetarian", "", "en")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.with, ingest.ExtractFacts(tt.text, tt.subj, kinds)); diff != "" {
				t.Errorf("with kinds: ExtractFacts(%q) (-want +got):\n%s", tt.text, diff)
			}
			if diff := cmp.Diff(tt.none, ingest.ExtractFacts(tt.text, tt.subj, nil)); diff != "" {
				t.Errorf("without: ExtractFacts(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestObservationFacts: what the profile learns from an observation as a
// bot sends it (first person, laughs, notes, hearsay), through the
// offline historian with WordNet and the dictionary.
func TestObservationFacts(t *testing.T) {
	h := ingest.NewHistorian(ingest.HistorianConfig{Kinds: testKinds(t)})
	zh := ingest.Subject{ID: "qq:10001", Name: "张三"}
	en := ingest.Subject{ID: "qq:20002", Name: "Alice"}
	tests := []struct {
		name string
		subj ingest.Subject
		obs  string
		want []string // category=value/polarity
	}{
		// A laugh is at the clause it follows: a claim before it is the
		// joke, a fact between a claim and the laugh is what it laughs at.
		{"en a laugh at the last fact", en, "I'm a sous chef, live in Busan, and I can't stand cilantro lol",
			[]string{"location=Busan/", "occupation=sous chef/", "food=cilantro/negative"}},
		{"zh a laugh after the joke goes on", zh, "我是火星人 来地球出差的 哈哈哈 别告诉别人", nil},
		{"en a clause that goes on without a subject", en, "I'm a nurse, live in Leeds", []string{"location=Leeds/", "occupation=nurse/"}},
		{"en a list still reads its items", en, "I love hiking and camping", []string{"hobby=camping/positive", "hobby=hiking/positive"}},
		{"en like as a filler", en, "I live on espresso, like four shots a day", []string{"drink=espresso/positive"}},
		{"en a place with diacritics", en, "I live in Gdańsk", []string{"location=Gdańsk/"}},
		{"en notes split by slashes", en, "Occupation: welder / Location: Kraków", []string{"location=Kraków/", "occupation=welder/"}},
		{"zh notes with = after a notes label", zh, "note: 所在地=于都县; 爱好=十字绣; 在学=手语",
			[]string{"location=于都县/", "hobby=十字绣/positive", "learning=手语/"}},
		{"zh hearsay opens the note", zh, "据用户说，他老家是鹤岗的", []string{"hometown=鹤岗/"}},
		{"zh a class's level before 的", zh, "最近报了个会计初级的课", []string{"learning=会计/"}},
		{"zh what happens without a drink", zh, "我每天一杯冰美式，不喝就犯困", []string{"drink=冰美式/positive"}},
		{"zh a trade dealt in", zh, "我在柯桥做面料生意", []string{"occupation=面料生意/", "workplace=柯桥/"}},
		{"en a major and where", en, "I'm majoring in chemistry at Rutgers", []string{"school=Rutgers/", "learning=chemistry/"}},
		{"en a school called Tech", en, "I'm at Georgia Tech", []string{"school=Georgia Tech/"}},
		{"zh a job in English", zh, "我在字节做product manager", []string{"occupation=product manager/", "workplace=字节/"}},
		{"zh a class for adults names no subject", zh, "我在学游泳，报了个成人班", []string{"learning=游泳/"}},
		{"zh the people one lives with, a list", zh, "我跟爸妈还有奶奶住一块儿", []string{"family=奶奶/", "family=爸妈/"}},
		{"zh living together names no place", zh, "我和爸妈住在一起", []string{"family=爸妈/"}},
		{"en what weekends go to", en, "I spend weekends birding", []string{"hobby=birding/positive"}},
		{"en what weekends go to, not work", en, "I spend weekends working", nil},
		{"en what one teaches and where", en, "I teach ceramics at a community college", []string{"occupation=ceramics/", "workplace=a community college/"}},
		// Facts said in passing (observation batch 24).
		{"zh a relative opening the text is the sender's", zh, "老婆在银行上班，我在街道办坐办公室", []string{"workplace=街道办/", "family=老婆/"}},
		{"zh a relative opening the text, alone", zh, "闺女今年上初一了", []string{"family=闺女/"}},
		{"zh driving a machine is a trade", zh, "我在码头开叉车", []string{"occupation=开叉车/"}},
		{"zh a stall one keeps", zh, "在菜市场门口摆了个卖煎饼的摊", []string{"occupation=卖煎饼/"}},
		{"zh a promotion names the job", zh, "上个月刚升了店长", []string{"occupation=店长/"}},
		{"zh born and bred", zh, "土生土长的青岛人", []string{"hometown=青岛/"}},
		{"zh a diet counted in weeks", zh, "控糖第三周了", []string{"diet=控糖/"}},
		{"zh a sport taken up instead", zh, "腰不好改打乒乓球了", []string{"hobby=乒乓球/positive"}},
		{"zh sharing a flat with someone", zh, "跟室友在厦门合租", []string{"location=厦门/"}},
		{"en drinking given up is no hobby", en, "I quit drinking last year", []string{"drink=drinking/negative"}},
		{"en what is one's thing now", en, "Oat milk is my thing now", []string{"drink=Oat milk/positive"}},
		{"en a relative's allergy reported", en, "The user said their sister is allergic to peanuts", nil},
		{"en where one lives, told by what is next door", en, "Lives next to a bakery in Porto", []string{"location=Porto/"}},
		{"en a change of career", en, "Switched from teaching to data analysis", []string{"occupation=data analysis/"}},
		{"zh the assistant is no job", zh, "我是AI助手，很高兴为你服务", nil},
		{"zh a move told after a time of year", zh, "在深圳待了五年，去年年底回长沙定居了", []string{"location=长沙/"}},
		{"zh a doctor's finding opens the text", zh, "大夫说我是尘螨过敏", []string{"allergy=尘螨/"}},
		{"zh a class taught names the workplace", zh, "我在实验中学带高三", []string{"workplace=实验中学/"}},
		{"zh an instrument of one character", zh, "我在乐队里打鼓", []string{"hobby=鼓/positive"}},
		// Observation batch 27 (its tune half).
		{"zh a laugh at a remark after a claim", zh, "我老婆是东北的，我是广西桂林人，所以我俩吃饭老吵架哈哈", []string{"hometown=广西桂林/", "family=老婆/"}},
		{"zh a note's label after the user without 的, a year before the date", zh, "用户生日：1998年2月14日（情人节）", []string{"birthday=2月14日/"}},
		{"zh notes under a bracketed heading", zh, "【用户画像】职业：中学物理老师；宠物：一只鹦鹉", []string{"occupation=中学物理老师/", "pet=鹦鹉/"}},
		{"zh a place's people said bare in a note", zh, "用户自述：成都人，现居杭州", []string{"location=杭州/", "hometown=成都/"}},
		{"zh a place's people as a reason", zh, "我吃不了辣，毕竟江苏人", []string{"hometown=江苏/", "food=辣/negative"}},
		{"zh a school and a major before 毕业的", zh, "北师大心理学毕业的", []string{"school=北师大/"}},
		{"zh a birthday as an answer", zh, "生日？我11月3号的，天蝎座", []string{"birthday=11月3号/"}},
		{"zh nearly two years is no part of the thing", zh, "练拳击快两年了", []string{"learning=拳击/"}},
		{"zh yyds of a drink", zh, "椰子水yyds，夏天一天能干掉三瓶", []string{"drink=椰子水/positive"}},
		{"zh a test for allergens names none", zh, "上周查了过敏原，我是对尘螨过敏", []string{"allergy=尘螨/"}},
		{"en graduated, then where and as what", en, "Graduated from NUS in 2021, now at DBS as an analyst", []string{"occupation=analyst/", "workplace=DBS/", "school=NUS/"}},
		{"en a first language", en, "I am learning English since two years, my first language is Vietnamese", []string{"language=Vietnamese/", "learning=English/"}},
		{"en coeliac keeps gluten out", en, "I'm coeliac so anything with gluten is a no-go for me", []string{"diet=gluten-free/"}},
		{"en born on a date, then the sender named", en, "Born 30 Dec 1995, I always get combined presents", []string{"birthday=30 Dec/", "habit=always gets combined presents/"}},
		{"en what one could live on", en, "ngl I could live on pho", []string{"food=pho/positive"}},
		{"en a drink and when, no verb", en, "Teh tarik kosong every morning, cannot survive without one", []string{"drink=Teh tarik kosong/positive"}},
		{"en a time before the sender", en, "Before work most mornings I'm doing lengths at the pool", []string{"habit=is doing lengths at the pool before work most mornings/"}},
		{"en a degree at a school, at the moment", en, "Doing my masters at Monash atm", []string{"school=Monash/"}},
		{"en the assistant a language model", en, "Sure! I'm a language model, so I can chat in lots of languages", nil},
		// Observation batch 28 (its tune half).
		{"zh Cantonese work at a firm", zh, "我喺荃湾住咗成十年，平日喺中环一间律师行做秘书", []string{"location=荃湾/", "occupation=秘书/", "workplace=中环一间律师行/"}},
		{"zh a language spoken well", zh, "我是高雄人，台語講得比國語還溜", []string{"hometown=高雄/", "language=台語/"}},
		{"zh languages listed with 同", zh, "我识讲潮州话同粤语", []string{"language=潮州话/", "language=粤语/"}},
		{"zh allergies listed", zh, "我对尘螨和猫毛都过敏", []string{"allergy=尘螨/", "allergy=猫毛/"}},
		{"zh a span of time is no value", zh, "我在练尤克里里，刚学两个月", []string{"learning=尤克里里/"}},
		{"zh a particle after a place's people", zh, "我係潮汕人嚟㗎", []string{"hometown=潮汕/"}},
		{"zh a low-purine diet", zh, "现在改成低嘌呤饮食了", []string{"diet=低嘌呤/"}},
		{"zh a pet at home with its age", zh, "家里还有只十岁的老泰迪", []string{"pet=泰迪/"}},
		{"zh the pet at home pointed at", zh, "我家那只边牧天天蹲在门口等我", []string{"pet=边牧/"}},
		{"zh a pastime named after 业余", zh, "本人业余爱好是风光摄影", []string{"hobby=风光摄影/positive"}},
		{"zh looking something up is no game", zh, "帮我查一下明天上午上海虹桥到杭州东的高铁", nil},
		{"zh the assistant as your little helper", zh, "作为你的小助手，我最喜欢做的事情就是帮你整理日程", nil},
		{"en a job a dictionary knows, in a city", en, "I'm a dental hygienist in Phoenix", []string{"location=Phoenix/", "occupation=dental hygienist/"}},
		{"en Singlish lead, crew without an article, a Chinese language", en, "Eh I stay in Tampines lah, work at Changi Airport as ground crew. Speak Hokkien with my ah ma at home also",
			[]string{"location=Tampines/", "occupation=ground crew/", "workplace=Changi Airport/", "language=Hokkien/"}},
		{"en a favourite food in a note", en, "Profile update: allergic to shellfish; favourite food is pho.", []string{"food=pho/positive", "allergy=shellfish/"}},
		{"en a whole personality", en, "tbh my whole personality is warhammer rn", []string{"hobby=warhammer/positive"}},
		{"en a language at work", en, "I speak Tagalog at home with my parents and English at work", []string{"family=parents/", "language=English/", "language=Tagalog/"}},
		{"en an allergy said ironically", en, "Ironically I'm allergic to sesame", []string{"allergy=sesame/"}},
		// Observation batches 28 and 29 (their tune halves), second round.
		{"zh a shop opened where", zh, "我在中央大街边上开了个饺子馆", []string{"workplace=饺子馆/"}},
		{"zh a Changsha lad", zh, "我长沙伢子咧", []string{"hometown=长沙/"}},
		{"zh a numbered fast", zh, "16:8轻断食坚持下来了", []string{"diet=轻断食/"}},
		{"zh a drink given up, the drink first", zh, "奶茶也戒了", []string{"drink=奶茶/negative"}},
		{"zh the one pet left at home", zh, "家里就剩一只玄凤鹦鹉", []string{"pet=鹦鹉/"}},
		{"zh married, said with 的", zh, "去年在这边结的婚", []string{"marital=已婚/"}},
		{"zh the assistant a language model", zh, "我是一个语言模型，住在服务器里，不会累也不会过敏哦", nil},
		{"en a dash between spaces ends a clause", en, "I'm originally from Toowoomba but moved to Melbourne for work — got engaged down here last Christmas", []string{"location=Melbourne/", "hometown=Toowoomba/", "marital=engaged/"}},
		{"zh a birthday, then its date", zh, "下周四是我生日，农历八月十五，年年跟中秋撞", []string{"birthday=农历八月十五/"}},
		{"zh a birthday, then its date in numbers", zh, "下礼拜三就是我生日啦，10月22", []string{"birthday=10月22/"}},
		{"zh someone else's birthday, then its date", zh, "下周四是我妈生日，农历八月十五", []string{"family=妈/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tr := range profileTraits(t, h, tt.obs, tt.subj) {
				got = append(got, tr.Category+"="+tr.Value+"/"+tr.Polarity)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.obs, diff)
			}
		})
	}
}
