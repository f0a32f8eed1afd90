package httpapi

import (
	"context"
	"sync"

	"github.com/labstack/echo/v4"
)

// userSlots gives each user at most n requests running at once; the others
// wait their turn, within their own deadline. On two cores a user who sends
// fifty recalls at once would otherwise hold both for all of them while
// every other user's requests queue behind; with slots, that user's requests
// queue behind each other and the other users' requests keep their share.
// A request that waits costs a goroutine, not its body (the handler reads
// that once it runs), and a wait cut off by the deadline answers 503
// timeout like any request that runs out of time.
type userSlots struct {
	n int

	mu    sync.Mutex
	users map[string]*userSlot
}

type userSlot struct {
	sem  chan struct{}
	refs int // requests running or waiting; the slot goes at 0
}

func newUserSlots(n int) *userSlots {
	return &userSlots{n: n, users: map[string]*userSlot{}}
}

// acquire waits for one of user's slots, or until ctx ends. release must be
// called once the request is done.
func (u *userSlots) acquire(ctx context.Context, user string) (release func(), err error) {
	u.mu.Lock()
	s, ok := u.users[user]
	if !ok {
		s = &userSlot{sem: make(chan struct{}, u.n)}
		u.users[user] = s
	}
	s.refs++
	u.mu.Unlock()
	drop := func() {
		u.mu.Lock()
		if s.refs--; s.refs == 0 {
			delete(u.users, user)
		}
		u.mu.Unlock()
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; drop() }, nil
	case <-ctx.Done():
		drop()
		return nil, ctx.Err()
	}
}

// fairShare runs a request once one of its user's slots is free (after
// authenticate has set the user). With PerUserInflight 0 it does nothing.
func (s *Server) fairShare(next echo.HandlerFunc) echo.HandlerFunc {
	if s.slots == nil {
		return next
	}
	return func(c echo.Context) error {
		user, _ := c.Get(userKey).(string)
		release, err := s.slots.acquire(c.Request().Context(), user)
		if err != nil {
			return err
		}
		defer release()
		return next(c)
	}
}
