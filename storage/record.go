package storage

import (
	"encoding/json"
	"time"
)

// Roles a message may have.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"
)

// ValidRole reports whether r is one of the message roles.
func ValidRole(r string) bool {
	switch r {
	case RoleUser, RoleAssistant, RoleSystem, RoleTool:
		return true
	}
	return false
}

// Message is one chat message as a bot sent it. SQLite holds it verbatim; the
// vector and lexical indexes are derived from it.
type Message struct {
	ID             string          `json:"id"`
	UserID         string          `json:"user_id"`
	ConversationID string          `json:"conversation_id"`
	GroupID        string          `json:"group_id,omitempty"`
	Role           string          `json:"role"`
	SenderID       string          `json:"sender_id,omitempty"`
	SenderName     string          `json:"sender_name,omitempty"`
	Content        string          `json:"content"`
	CreatedAt      time.Time       `json:"created_at"`
	Meta           json.RawMessage `json:"meta,omitempty"`
}

// Filter narrows a query to part of one user's messages. Zero values match all.
type Filter struct {
	Role           string
	Since, Until   time.Time // Since inclusive, Until exclusive
	ConversationID string
	GroupID        string
}

// Hit is a message found by a search, with its score (higher is better).
type Hit struct {
	Message
	Score float64
}

// InsertResult tells what happened to each message of a batch, in order.
type InsertResult struct {
	Inserted  int
	Duplicate int // same id and same content: a no-op
}

// IndexStatus describes the derived indexes.
type IndexStatus struct {
	Embedder string `json:"embedder"`
	Dim      int    `json:"dim"`
	Pending  int    `json:"pending"` // outbox entries not yet indexed
}
