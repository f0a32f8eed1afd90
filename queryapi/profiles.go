package queryapi

import (
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/storage"
)

// DefaultProfileTopK is search_profiles' top_k when neither the caller nor
// the configuration ([cognitive.profile] profile_top_k) sets one.
const DefaultProfileTopK = 8

// ErrNoProfile means the user's memory has no such profile (or no such kept
// revision of it).
var ErrNoProfile = errors.New("queryapi: no such profile")

// ProfileParams name one profile: get_profile's parameters.
type ProfileParams struct {
	EntityType string `json:"entity_type" jsonschema:"required,enum=user,enum=group,description=user (a person) or group (a group chat)"`
	EntityID   string `json:"entity_id" jsonschema:"required,description=the person's sender id or the group's id"`
}

// ProfileSearchParams are the parameters of search_profiles.
type ProfileSearchParams struct {
	Query      string `json:"query" jsonschema:"required,description=words or a description of whom to find"`
	EntityType string `json:"entity_type,omitempty" jsonschema:"enum=user,enum=group,description=only people (user) or only groups (group)"`
	TopK       int    `json:"top_k,omitempty" jsonschema:"minimum=1,maximum=100,description=how many profiles (default 8)"`
}

// RestoreParams name a kept revision of a profile to make current again.
type RestoreParams struct {
	ProfileParams
	Revision int `json:"revision" jsonschema:"required,minimum=1"`
}

// ProfilePage is what search_profiles returns, best first.
type ProfilePage struct {
	Profiles []storage.ProfileHit `json:"profiles"`
}

// RevisionList is a profile's kept revisions, newest first.
type RevisionList struct {
	Revisions []storage.ProfileRevision `json:"revisions"`
}

// SetProfileTopK sets search_profiles' default top_k of the tools s binds
// from now on (non-positive: DefaultProfileTopK). It returns s.
func (s *Service) SetProfileTopK(k int) *Service {
	if k <= 0 || k > MaxTopK {
		k = DefaultProfileTopK
	}
	s.profileTopK = k
	return s
}

func (p ProfileParams) check() error {
	if p.EntityType != storage.EntityUser && p.EntityType != storage.EntityGroup {
		return invalid("entity_type must be user or group, not %q", p.EntityType)
	}
	if p.EntityID == "" || len(p.EntityID) > storage.MaxIDLen || !utf8.ValidString(p.EntityID) ||
		strings.IndexFunc(p.EntityID, unicode.IsControl) >= 0 {
		return invalid("entity_id must be printable UTF-8 of 1..%d bytes", storage.MaxIDLen)
	}
	return nil
}

func (p ProfileParams) notFound(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return errorf(ErrNoProfile, "no %s profile %q", p.EntityType, p.EntityID)
	}
	return mapErr(err)
}

// GetProfile returns the user's profile of a person or a group.
func (t *Tools) GetProfile(ctx context.Context, p ProfileParams) (storage.Profile, error) {
	if err := p.check(); err != nil {
		return storage.Profile{}, err
	}
	pr, err := t.store.GetProfile(ctx, t.user, p.EntityType, p.EntityID)
	if err != nil {
		return storage.Profile{}, p.notFound(err)
	}
	return pr, nil
}

// SearchProfiles ranks the user's profiles for a query: BM25 over their
// names, tags, summaries and traits fused with vector similarity by
// reciprocal rank (fuseProfiles).
func (t *Tools) SearchProfiles(ctx context.Context, p ProfileSearchParams) (ProfilePage, error) {
	if strings.TrimSpace(p.Query) == "" {
		return ProfilePage{}, invalid("query is required")
	}
	if err := checkText("query", p.Query); err != nil {
		return ProfilePage{}, err
	}
	if p.EntityType != "" && p.EntityType != storage.EntityUser && p.EntityType != storage.EntityGroup {
		return ProfilePage{}, invalid("entity_type must be user or group, not %q", p.EntityType)
	}
	k := p.TopK
	if k == 0 {
		k = t.profileTopK
	}
	if k < 1 || k > MaxTopK {
		return ProfilePage{}, invalid("top_k must be between 1 and %d", MaxTopK)
	}
	rankings, err := t.store.SearchProfiles(ctx, t.user, storage.ProfileQuery{Text: p.Query, EntityType: p.EntityType, TopK: k})
	if err != nil {
		return ProfilePage{}, mapErr(err)
	}
	hits := fuseProfiles(rankings)
	return ProfilePage{Profiles: hits[:min(k, len(hits))]}, nil
}

// ProfileRevisions lists the kept revisions of one of the user's profiles.
func (t *Tools) ProfileRevisions(ctx context.Context, p ProfileParams) (RevisionList, error) {
	if err := p.check(); err != nil {
		return RevisionList{}, err
	}
	revs, err := t.store.ProfileRevisions(ctx, t.user, p.EntityType, p.EntityID)
	if err != nil {
		return RevisionList{}, p.notFound(err)
	}
	return RevisionList{Revisions: revs}, nil
}

// RestoreProfile makes a kept revision of one of the user's profiles current
// again, as a new revision, and returns the profile.
func (t *Tools) RestoreProfile(ctx context.Context, p RestoreParams) (storage.Profile, error) {
	if err := p.check(); err != nil {
		return storage.Profile{}, err
	}
	if p.Revision < 1 {
		return storage.Profile{}, invalid("revision must be a positive number")
	}
	pr, err := t.store.RestoreProfile(ctx, t.user, p.EntityType, p.EntityID, p.Revision)
	if errors.Is(err, storage.ErrNotFound) {
		return storage.Profile{}, errorf(ErrNoProfile, "revision %d of %s profile %q is not kept", p.Revision, p.EntityType, p.EntityID)
	}
	if err != nil {
		return storage.Profile{}, mapErr(err)
	}
	return pr, nil
}
