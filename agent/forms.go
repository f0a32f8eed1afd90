package agent

import "strings"

// traditionalForms are the traditional forms of the Chinese characters the
// agent's patterns are written with (什么时候, 几号, 哪个 …), so that a
// question or message in traditional characters (什麼時候, 幾號, 哪個)
// matches them too. They were read off CC-CEDICT by the rule the
// dictionary's own forms follow (bilingual.Dict.Traditional: a form of
// 15% or more of a character's entries), for every character of the
// patterns that has one; TestTraditionalForms checks them against the
// dictionary where it is installed. The skill's lexicons get their forms
// from the dictionary at load (Params.withForms).
var traditionalForms = map[rune]string{
	'两': "兩", '个': "個", '为': "為", '么': "麼", '于': "於", '从': "從", '们': "們", '会': "會", '儿': "兒", '几': "幾", '刚': "剛", '动': "動", '变': "變", '只': "隻", '号': "號", '后': "後", '吗': "嗎", '周': "週", '头': "頭", '它': "牠", '宝': "寶", '岁': "歲", '带': "帶", '帮': "幫", '干': "乾幹", '开': "開", '换': "換", '时': "時", '机': "機", '条': "條", '来': "來", '样': "樣", '没': "沒", '点': "點", '烦': "煩", '猫': "貓", '着': "著", '礼': "禮", '种': "種", '称': "稱", '类': "類", '给': "給", '让': "讓", '说': "說", '请': "請", '谁': "誰", '趟': "䠀", '过': "過", '这': "這", '迟': "遲", '里': "裡", '钟': "鐘鍾", '长': "長", '门': "門", '问': "問", '间': "間", '闺': "閨", '阵': "陣", '项': "項", '饭': "飯", '总': "總", '结': "結", '记': "記", '码': "碼", '编': "編", '单': "單", '车': "車", '账': "賬", '学': "學", '证': "證", '统': "統", '电': "電", '话': "話", '联': "聯", '系': "係", '划': "劃", '诉': "訴", '规': "規", '计': "計", '订': "訂", '准': "準", '备': "備", '觉': "覺", '该': "該", '应': "應", '选': "選", '报': "報", '适': "適",
}

// zhForms returns a regular expression's pattern with each Chinese
// character that has traditional forms matching them too: 么 becomes [么麼]
// outside a character class and 么麼 inside one.
func zhForms(pattern string) string {
	var b strings.Builder
	inClass, escaped := false, false
	for _, r := range pattern {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case r == '[' && !inClass:
			inClass = true
		case r == ']' && inClass:
			inClass = false
		}
		forms, ok := traditionalForms[r]
		switch {
		case !ok:
			b.WriteRune(r)
		case inClass:
			b.WriteRune(r)
			b.WriteString(forms)
		default:
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteString(forms)
			b.WriteByte(']')
		}
	}
	return b.String()
}
