// Package sleep holds floe's one context-aware wait: the pause between
// retries and polls that a cancelled context cuts short. It imports the
// standard library only, so every layer may use it.
package sleep

import (
	"context"
	"time"
)

// For waits d, or until ctx ends, whichever comes first. It returns nil
// after d and ctx.Err() when ctx ended first.
func For(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
