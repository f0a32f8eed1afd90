package queryapi

import "testing"

func scopeOf(p ContextParams) string {
	if p.GroupID != "" {
		return RequestGroup
	}
	return RequestPrivate
}

func TestContextQuery(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    ContextParams
		want string
	}{
		{"long text as is", ContextParams{Message: "what did we decide about project Atlas last week?", SenderID: "1"},
			"what did we decide about project Atlas last week?"},
		{"content element", ContextParams{Message: "<m><content>  在吗  </content><at/></m>", SenderID: "1", SenderName: "小王",
			GroupID: "g", GroupName: "茶友会", AtBot: true}, "在吗\n群聊 茶友会, @机器人, 发送者 小王"},
		{"short english", ContextParams{Message: "and then?", SenderID: "u7"}, "and then?\nprivate chat, sender u7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := contextQuery(tc.p, scopeOf(tc.p)); got != tc.want {
				t.Errorf("query = %q, want %q", got, tc.want)
			}
		})
	}
}
