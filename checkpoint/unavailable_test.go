package checkpoint_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/checkpoint"
)

func TestIsUnavailable(t *testing.T) {
	opErr := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	yes := []error{
		fmt.Errorf("list tables: %w", opErr),
		fmt.Errorf("get table: %w", context.DeadlineExceeded),
		fmt.Errorf("get table: %w", io.EOF),
		fmt.Errorf("put run: %w", redis.ErrPoolTimeout),
		fmt.Errorf("get lease: %w: %w", checkpoint.ErrClosed, errors.New("closed")),
		fmt.Errorf("x: %w", syscall.ECONNRESET),
	}
	for _, err := range yes {
		if !checkpoint.IsUnavailable(err) {
			t.Errorf("IsUnavailable(%v) = false, want true", err)
		}
	}
	no := []error{
		nil,
		fmt.Errorf("get table %q: %w", "t", checkpoint.ErrNotFound),
		fmt.Errorf("create table: %w", checkpoint.ErrConflict),
		fmt.Errorf("commit: %w", checkpoint.ErrFenced),
		fmt.Errorf("put table: %w", checkpoint.ErrInvalid),
		context.Canceled,
		errors.New("decode table: unexpected format version 9"),
	}
	for _, err := range no {
		if checkpoint.IsUnavailable(err) {
			t.Errorf("IsUnavailable(%v) = true, want false", err)
		}
	}
}
