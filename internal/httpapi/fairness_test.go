package httpapi

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestUserSlots: a user's requests beyond its slots wait until one is
// released or their own deadline ends; other users are not held up; slots
// of users with nothing running are dropped.
func TestUserSlots(t *testing.T) {
	u := newUserSlots(2)
	ctx := t.Context()
	r1, err := u.acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := u.acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	// A's third waits; its deadline ends the wait.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	if _, err := u.acquire(short, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third of a: %v, want deadline exceeded", err)
	}
	cancel()
	// B is not held up by A's full slots.
	rb, err := u.acquire(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	rb()
	// A's waiter gets the slot a release frees.
	got := make(chan func(), 1)
	go func() {
		r, err := u.acquire(ctx, "a")
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	select {
	case <-got:
		t.Fatal("third of a ran with both slots taken")
	case <-time.After(20 * time.Millisecond):
	}
	r1()
	r3 := <-got
	r2()
	r3()
	u.mu.Lock()
	left := len(u.users)
	u.mu.Unlock()
	if left != 0 {
		t.Errorf("%d users keep slots with nothing running", left)
	}
}
