package queryapi

import (
	"time"

	"github.com/recalld/recalld/storage"
)

// Evidence is one recall hit, traceable to the message it came from.
type Evidence struct {
	MessageID      string    `json:"message_id"`
	Role           string    `json:"role"`
	Content        string    `json:"content"` // the original text, never rewritten
	CreatedAt      time.Time `json:"created_at"`
	ConversationID string    `json:"conversation_id"`
	GroupID        string    `json:"group_id,omitempty"`
	SenderID       string    `json:"sender_id,omitempty"`
	SenderName     string    `json:"sender_name,omitempty"`
	Score          float64   `json:"score"`
}

func evidenceOf(m storage.Message, score float64) Evidence {
	return Evidence{
		MessageID:      m.ID,
		Role:           m.Role,
		Content:        m.Content,
		CreatedAt:      m.CreatedAt,
		ConversationID: m.ConversationID,
		GroupID:        m.GroupID,
		SenderID:       m.SenderID,
		SenderName:     m.SenderName,
		Score:          score,
	}
}

// Page is one page of a tool's answer.
type Page struct {
	Hits []Evidence `json:"hits"`
	// NextCursor continues the listing; it is empty on the last page, and
	// on the page of a lexical search that reaches its paging bound.
	NextCursor string `json:"next_cursor"`
	// Considered is how many of the user's messages the query could see
	// (those inside its filter), for the agent's stated limits.
	Considered int `json:"considered"`
	// Notes say where the search did not take the query as written (a
	// quoted phrase too long to match word by word).
	Notes []string `json:"notes,omitempty"`
}

// NeighborsResult is a message with the messages around it in its conversation.
type NeighborsResult struct {
	Anchor     Evidence   `json:"anchor"`
	Before     []Evidence `json:"before"`
	After      []Evidence `json:"after"`
	Considered int        `json:"considered"`
}
