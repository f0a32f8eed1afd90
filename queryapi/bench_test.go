package queryapi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
)

// BenchmarkTools measures each tool as the agent and the HTTP routes call
// it (the "considered" count included), reporting p95 latency.
func BenchmarkTools(b *testing.B) {
	queries := []string{"spicy noodles", "project atlas", "火锅 辣", "meeting friday", "周末 电影", "doctor", "咖啡"}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			t, err := queryapitest.Seeded(b, n).Bind(queryapitest.User)
			if err != nil {
				b.Fatal(err)
			}
			ctx := b.Context()
			bench := func(name string, fn func(i int) error) {
				b.Run(name, func(b *testing.B) {
					queryapitest.LoopP95(b, fn)
				})
			}
			since := func(i int) string {
				return queryapitest.T0.Add(time.Duration((i*7919)%n) * time.Second).Format(time.RFC3339)
			}
			bench("messages_list", func(i int) error {
				_, err := t.MessagesList(ctx, queryapi.ListParams{Since: since(i), PageSize: 50})
				return err
			})
			bench("messages_list_role", func(i int) error {
				_, err := t.MessagesList(ctx, queryapi.ListParams{Since: since(i), Role: "user", PageSize: 50})
				return err
			})
			bench("lexical_search", func(i int) error {
				_, err := t.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: queries[i%len(queries)], PageSize: 20})
				return err
			})
			bench("lexical_search_any_role", func(i int) error {
				_, err := t.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: queries[i%len(queries)], Match: "any", Filter: queryapi.Filter{Role: "user"}, PageSize: 20})
				return err
			})
			bench("semantic_search", func(i int) error {
				_, err := t.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: queries[i%len(queries)], TopK: 10})
				return err
			})
			bench("semantic_search_role", func(i int) error {
				_, err := t.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: queries[i%len(queries)], TopK: 10, Filter: queryapi.Filter{Role: "user"}})
				return err
			})
			bench("neighbors", func(i int) error {
				_, err := t.Neighbors(ctx, queryapi.NeighborsParams{MessageID: fmt.Sprintf("m%d", (i*7919)%n), Before: 5, After: 5})
				return err
			})
		})
	}
}

// BenchmarkToolsTenants measures the tools for the 100k-message user and
// for a light user (20 messages) of one store holding both and 999 more
// light users, reporting p95 latency.
func BenchmarkToolsTenants(b *testing.B) {
	const n, light = 100_000, 1000
	svc := queryapitest.SeededTenants(b, n, light)
	queries := []string{"spicy noodles", "project atlas", "火锅 辣", "meeting friday", "周末 电影", "doctor", "咖啡"}
	for _, tc := range []struct {
		name string
		user string
		msgs int
	}{{"heavy", queryapitest.User, n}, {"light", queryapitest.LightUser(light / 2), queryapitest.LightUsers}} {
		t, err := svc.Bind(tc.user)
		if err != nil {
			b.Fatal(err)
		}
		ctx := b.Context()
		bench := func(name string, fn func(i int) error) {
			b.Run(tc.name+"/"+name, func(b *testing.B) {
				queryapitest.LoopP95(b, fn)
			})
		}
		bench("messages_list", func(i int) error {
			since := queryapitest.T0.Add(time.Duration((i*7919)%tc.msgs) * time.Second).Format(time.RFC3339)
			_, err := t.MessagesList(ctx, queryapi.ListParams{Since: since, PageSize: 50})
			return err
		})
		bench("lexical_search", func(i int) error {
			_, err := t.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: queries[i%len(queries)], PageSize: 20})
			return err
		})
		bench("semantic_search", func(i int) error {
			_, err := t.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: queries[i%len(queries)], TopK: 10})
			return err
		})
		bench("semantic_search_role", func(i int) error {
			_, err := t.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: queries[i%len(queries)], TopK: 10, Filter: queryapi.Filter{Role: "user"}})
			return err
		})
		bench("neighbors", func(i int) error {
			_, err := t.Neighbors(ctx, queryapi.NeighborsParams{MessageID: fmt.Sprintf("m%d", (i*7919)%tc.msgs), Before: 5, After: 5})
			return err
		})
	}
}
