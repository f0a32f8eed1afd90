// Package httpapitest helps tests talk to the HTTP API: a Client that acts
// for one user (with an API key or none) and a transport that checks every
// response against openapi.yaml. The tests of internal/httpapi run it over
// httptest; those of cmd/recalld over `recalld serve`.
package httpapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/httpapi"
)

// Client sends requests to the API at Base as User (none when "") with Key
// (none when ""); a failed request fails TB. Its zero HTTP client is
// http.DefaultClient; NewClient's checks the contract.
type Client struct {
	TB   testing.TB
	Base string
	HTTP *http.Client
	User string
	Key  string
}

// NewClient returns a client of the API at base that validates every
// response against openapi.yaml (see Contract), acting for no user.
func NewClient(tb testing.TB, base string) *Client {
	return &Client{TB: tb, Base: base, HTTP: &http.Client{Transport: Contract(tb, http.DefaultTransport)}}
}

// As returns the client acting for user, without a key.
func (c *Client) As(user string) *Client {
	d := *c
	d.User, d.Key = user, ""
	return &d
}

// WithKey returns the client sending key as its bearer token.
func (c *Client) WithKey(key string) *Client {
	d := *c
	d.Key = key
	return &d
}

// Raw sends body (see NewRequest) with the header pairs of hdr and returns
// the status and body.
func (c *Client) Raw(method, path string, body any, hdr ...string) (int, []byte) {
	c.TB.Helper()
	req, err := NewRequest(context.Background(), method, c.Base+path, c.User, c.Key, body, hdr...)
	if err != nil {
		c.TB.Fatal(err)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		c.TB.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		c.TB.Fatal(err)
	}
	return resp.StatusCode, out
}

// Do is Raw that expects status want and decodes the body into out.
func (c *Client) Do(method, path string, body any, want int, out any) {
	c.TB.Helper()
	status, b := c.Raw(method, path, body)
	if status != want {
		c.TB.Fatalf("%s %s as %q: status %d, want %d: %s", method, path, c.User, status, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.TB.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// requestBody is body to send: nil as none, a string or []byte as is,
// anything else as JSON.
func requestBody(body any) (io.Reader, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.NewReader(b), nil
	case []byte:
		return bytes.NewReader(b), nil
	}
	j, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(j), nil
}

// NewRequest is a request of user (with key, if any; "" for none) that
// carries body (nil as none, a string or []byte as is, anything else as
// JSON) and the header pairs of hdr, where an empty value removes the
// header.
func NewRequest(ctx context.Context, method, url, user, key string, body any, hdr ...string) (*http.Request, error) {
	r, err := requestBody(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, err
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.Header.Set(httpapi.HeaderUser, user)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	return req, nil
}

// Message is a message of POST /messages: conversation c1, sender Ann,
// created minute minutes after 2026-03-01 12:00 UTC.
func Message(id, role, content string, minute int) map[string]any {
	return map[string]any{
		"id": id, "role": role, "content": content, "conversation_id": "c1", "sender_name": "Ann",
		"created_at": time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(minute) * time.Minute).Format(time.RFC3339),
	}
}

// Query is the query string of the key, value pairs kv, with its "?".
func Query(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return "?" + v.Encode()
}

// TurnAt is when Turn's turn happened: Wednesday 2026-03-04 14:30 in
// Shanghai.
const TurnAt = "2026-03-04T06:30:00Z"

// Turn is a body of POST /turns/end: a private turn of qq:1 (张三) at
// TurnAt with request id requestID, its memo and observations obs.
func Turn(requestID string, obs ...string) map[string]any {
	return map[string]any{
		"request_id": requestID, "memo": "memo of " + requestID, "observations": obs,
		"sender_id": "qq:1", "sender_name": "张三", "request_type": "private", "timestamp": TurnAt,
		"source_message": "我昨天去了北京", "recent_messages": []map[string]any{{"time": "14:29", "sender_name": "张三", "sender_id": "qq:1", "text": "我昨天去了北京"}},
	}
}
