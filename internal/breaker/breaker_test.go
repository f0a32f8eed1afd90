package breaker

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
)

// TestDo: store faults in a row open the circuit and Do refuses without
// running fn; other errors (a client's mistake, a missing row) never count;
// a panicking fn frees its probe.
func TestDo(t *testing.T) {
	fault := fmt.Errorf("write: %w", storage.ErrFault)
	for _, tt := range []struct {
		name      string
		outcomes  []error
		wantState string
	}{
		{"faults open it", []error{fault, fault, fault}, Open},
		{"other errors do not count", []error{storage.ErrNotFound, storage.ErrInvalid, errors.New("bug"), fault}, Closed},
		{"successes in between keep it closed", []error{fault, fault, nil, nil, nil, nil, fault}, Closed},
		{"half the requests failing opens it", []error{fault, nil, fault, nil, fault}, Open},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := New(Settings{Failures: 3, OpenTimeout: time.Hour, HalfOpenRequests: 1}, slog.New(slog.DiscardHandler))
			for _, o := range tt.outcomes {
				if err := Do(b, func() error { return o }); !errors.Is(err, o) && o != nil {
					t.Fatalf("Do returned %v, want %v", err, o)
				}
			}
			if got := b.State(); got != tt.wantState {
				t.Fatalf("state %s, want %s", got, tt.wantState)
			}
			ran := false
			err := Do(b, func() error { ran = true; return nil })
			if refused := errors.Is(err, ErrRefused); refused != (tt.wantState == Open) || ran == refused {
				t.Fatalf("after %s: err %v, ran %v", tt.wantState, err, ran)
			}
		})
	}
	t.Run("nil gate", func(t *testing.T) {
		if err := Do(nil, func() error { return fault }); !errors.Is(err, storage.ErrFault) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("panic frees the probe", func(t *testing.T) {
		b := New(Settings{Failures: 1, OpenTimeout: 10 * time.Millisecond, HalfOpenRequests: 1}, slog.New(slog.DiscardHandler))
		_ = Do(b, func() error { return fault })
		time.Sleep(20 * time.Millisecond) // the open timeout passes: half-open
		func() {
			defer func() { _ = recover() }()
			_ = Do(b, func() error { panic("boom") })
		}()
		if err := Do(b, func() error { return nil }); err != nil || b.State() != Closed {
			t.Fatalf("probe after a panic: err %v, state %s", err, b.State())
		}
	})
}
