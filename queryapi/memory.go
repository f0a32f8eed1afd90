package queryapi

import (
	"context"
	"strings"

	"github.com/recalld/recalld/storage"
)

// Limits of the memo listing.
const (
	DefaultMemoLimit = 20
	MaxMemoLimit     = 200
)

// MemosParams are the parameters of memos: the notes the bot left at the
// end of its turns, the latest turn first.
type MemosParams struct {
	GroupID     string `json:"group_id,omitempty" jsonschema:"description=only memos of turns in this group chat"`
	SenderID    string `json:"sender_id,omitempty" jsonschema:"description=only memos of turns started by this sender"`
	RequestType string `json:"request_type,omitempty" jsonschema:"enum=private,enum=group,description=only memos of private or of group turns"`
	Limit       int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200,description=how many memos (default 20)"`
}

// MemoList is a page of memos, the latest turn first.
type MemoList struct {
	Memos []storage.Memo `json:"memos"`
}

// Memos lists the user's memos.
func (t *Tools) Memos(ctx context.Context, p MemosParams) (MemoList, error) {
	switch {
	case p.Limit == 0:
		p.Limit = DefaultMemoLimit
	case p.Limit < 0 || p.Limit > MaxMemoLimit:
		return MemoList{}, invalid("limit must be between 1 and %d", MaxMemoLimit)
	}
	if p.RequestType != "" && p.RequestType != "private" && p.RequestType != "group" {
		return MemoList{}, invalid("request_type must be private or group")
	}
	ms, err := t.store.ListMemos(ctx, t.user, storage.MemoFilter{
		GroupID: p.GroupID, SenderID: p.SenderID, RequestType: p.RequestType, Limit: p.Limit,
	})
	if err != nil {
		return MemoList{}, mapErr(err)
	}
	return MemoList{Memos: ms}, nil
}

// MemoryAddParams are the parameters of memory_add: pin a fact the bot must
// always keep in mind.
type MemoryAddParams struct {
	ID      string   `json:"id,omitempty" jsonschema:"pattern=^[A-Za-z0-9._:-]+$,maxLength=128,description=an id of your choosing; adding it again with the same content is a no-op"`
	Content string   `json:"content" jsonschema:"required,minLength=1,maxLength=1000,description=the fact to pin (at most 1000 characters)"`
	GroupID string   `json:"group_id,omitempty" jsonschema:"description=pin it for this group chat only; empty pins it everywhere"`
	Tags    []string `json:"tags,omitempty" jsonschema:"maxItems=16,description=short labels (at most 16 of 32 characters)"`
}

// MemoryListParams are the parameters of memory_list.
type MemoryListParams struct {
	GroupID string `json:"group_id,omitempty" jsonschema:"description=the memories that apply in this group chat: the unscoped ones and those pinned to it"`
	Exact   bool   `json:"exact,omitempty" jsonschema:"description=only the memories pinned to exactly group_id (with no group_id: only the unscoped ones)"`
}

// MemoryList is the user's pinned memories, oldest first, with the most a
// user may keep.
type MemoryList struct {
	Memories []storage.Memory `json:"memories"`
	Max      int              `json:"max"`
}

// MemoryRef names one pinned memory.
type MemoryRef struct {
	ID string `json:"id" jsonschema:"required,description=the memory's id"`
}

// MemoryUpdateParams are the parameters of memory_update; fields left out
// stay as they are.
type MemoryUpdateParams struct {
	ID      string    `json:"id" jsonschema:"required,description=the memory's id"`
	Content *string   `json:"content,omitempty" jsonschema:"minLength=1,maxLength=1000,description=the new text"`
	GroupID *string   `json:"group_id,omitempty" jsonschema:"description=the new scope; empty pins it everywhere"`
	Tags    *[]string `json:"tags,omitempty" jsonschema:"maxItems=16,description=the new labels (replace the old ones)"`
}

func trimTags(tags []string) []string {
	if tags == nil {
		return nil
	}
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = strings.TrimSpace(t)
	}
	return out
}

func checkMemoryID(id string) error {
	if !storage.ValidMemoryID(id) {
		return invalid("id must be 1..%d ASCII letters, digits or . _ : -", storage.MaxMemoryIDLen)
	}
	return nil
}

// MemoryAdd pins a memory. created is false when p.ID names a memory that
// exists with the same content, scope and tags (a replayed add).
func (t *Tools) MemoryAdd(ctx context.Context, p MemoryAddParams) (m storage.Memory, created bool, err error) {
	if p.ID != "" {
		if err := checkMemoryID(p.ID); err != nil {
			return storage.Memory{}, false, err
		}
	}
	content := strings.TrimSpace(p.Content)
	if content == "" {
		return storage.Memory{}, false, invalid("content is required")
	}
	m, created, err = t.store.AddMemory(ctx, t.user, storage.Memory{ID: p.ID, Content: content, GroupID: p.GroupID, Tags: trimTags(p.Tags)})
	return m, created, mapErr(err)
}

// MemoryList lists the user's pinned memories.
func (t *Tools) MemoryList(ctx context.Context, p MemoryListParams) (MemoryList, error) {
	ms, err := t.store.ListMemories(ctx, t.user, storage.MemoryFilter{GroupID: p.GroupID, Exact: p.Exact})
	if err != nil {
		return MemoryList{}, mapErr(err)
	}
	return MemoryList{Memories: ms, Max: storage.MaxMemories}, nil
}

// MemoryGet returns one pinned memory; another user's is ErrNotFound.
func (t *Tools) MemoryGet(ctx context.Context, p MemoryRef) (storage.Memory, error) {
	if err := checkMemoryID(p.ID); err != nil {
		return storage.Memory{}, err
	}
	m, err := t.store.GetMemory(ctx, t.user, p.ID)
	return m, mapErr(err)
}

// MemoryUpdate changes a pinned memory and returns it.
func (t *Tools) MemoryUpdate(ctx context.Context, p MemoryUpdateParams) (storage.Memory, error) {
	if err := checkMemoryID(p.ID); err != nil {
		return storage.Memory{}, err
	}
	if p.Content == nil && p.GroupID == nil && p.Tags == nil {
		return storage.Memory{}, invalid("nothing to update: give content, group_id or tags")
	}
	patch := storage.MemoryPatch{GroupID: p.GroupID}
	if p.Content != nil {
		c := strings.TrimSpace(*p.Content)
		if c == "" {
			return storage.Memory{}, invalid("content must not be empty")
		}
		patch.Content = &c
	}
	if p.Tags != nil {
		tags := trimTags(*p.Tags)
		patch.Tags = &tags
	}
	m, err := t.store.UpdateMemory(ctx, t.user, p.ID, patch)
	return m, mapErr(err)
}

// MemoryDelete unpins a memory.
func (t *Tools) MemoryDelete(ctx context.Context, p MemoryRef) error {
	if err := checkMemoryID(p.ID); err != nil {
		return err
	}
	return mapErr(t.store.DeleteMemory(ctx, t.user, p.ID))
}
