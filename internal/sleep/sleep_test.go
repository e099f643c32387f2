package sleep_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floehq/floe/internal/sleep"
)

func TestFor_WaitsOut(t *testing.T) {
	if err := sleep.For(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("a wait under a live context: %v", err)
	}
}

func TestFor_EndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep.For(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("a wait under a cancelled context: %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if err := sleep.For(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait past the context's deadline: %v, want context.DeadlineExceeded", err)
	}
}
