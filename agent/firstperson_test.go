package agent

import "testing"

func TestFirstPerson(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"我膝盖有毛病吗？", true},
		{"我们上次决定了什么？", false},
		{"我们定的方案，我负责哪块？", true},
		{"上次爬山走了多远？", false},
		{"Am I allergic to eggs?", true},
		{"What's my dog called?", true},
		{"When did Caroline go to the LGBTQ support group?", false},
		{"Is billing still on Postgres 12?", false},
	} {
		if got := firstPerson(tc.q); got != tc.want {
			t.Errorf("firstPerson(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}
