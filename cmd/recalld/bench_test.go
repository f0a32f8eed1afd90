package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/httpapi"
)

// BenchmarkPostMessages measures acknowledged ingest over HTTP on loopback:
// batches of 1000 messages, each answered once committed to SQLite.
func BenchmarkPostMessages(b *testing.B) {
	ts := startServer(b, nil)
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const batch = 1000
	hc := &http.Client{} // no contract validation in the timed loop
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		b.StopTimer()
		msgs := make([]map[string]any, batch)
		for j := range msgs {
			k := n*batch + j
			msgs[j] = map[string]any{
				"id": fmt.Sprintf("m%d", k), "role": "user", "conversation_id": fmt.Sprintf("c%d", k/200),
				"sender_name": "Ann", "content": fmt.Sprintf("message %d: 我们周五去吃火锅 and talk about project Atlas", k),
				"created_at": base.Add(time.Duration(k) * time.Second).Format(time.RFC3339),
			}
		}
		body, err := json.Marshal(map[string]any{"messages": msgs})
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest("POST", ts.base+"/messages", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(httpapi.HeaderUser, "qq:bench")
		b.StartTimer()
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		n++
	}
	b.ReportMetric(float64(n*batch)/b.Elapsed().Seconds(), "msg/s")
}
