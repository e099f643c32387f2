package pinot

import (
	"context"
	"fmt"
)

// Guard decides whether a write to Pinot may happen now. The watcher
// installs one per run (lease still valid on the monotonic clock, fencing
// token re-checked); an error refuses the write.
type Guard func(ctx context.Context, w Write) error

// Write describes one mutating request an Uploader is about to send.
type Write struct {
	Op       string   // one of the Op* constants
	Table    string   // raw table name
	Segments []string // the segment names the call names (none for end/revert, which name a replacement id)
	// Destructive: the write can remove or hide data Pinot serves
	// (replacement start/end/revert, deletes, schema updates).
	Destructive bool
}

// The operations a Guard is asked about.
const (
	OpUpdateSchema   = "update schema"
	OpCreateTable    = "create table"
	OpUpload         = "upload segment"
	OpDeepStorePut   = "put deep-store object"
	OpDeepStoreDel   = "delete deep-store objects"
	OpStartReplace   = "start replace"
	OpEndReplace     = "end replace"
	OpRevertReplace  = "revert replace"
	OpDeleteSegments = "delete segments"
	OpReload         = "reload segments"
)

type guardKey struct{}

// WithGuard returns a context whose Uploader calls ask g before every
// mutating request attempt, retries included.
func WithGuard(ctx context.Context, g Guard) context.Context {
	return context.WithValue(ctx, guardKey{}, g)
}

// CheckGuard asks the guard in ctx, if any, about w; implementations of
// Uploader and DeepStore call it right before every mutating attempt. A
// refusal comes back wrapped with the operation and table; nothing may be
// sent after it.
func CheckGuard(ctx context.Context, w Write) error {
	g, _ := ctx.Value(guardKey{}).(Guard)
	if g == nil {
		return nil
	}
	if err := g(ctx, w); err != nil {
		return fmt.Errorf("%s of %s refused by write guard: %w", w.Op, w.Table, err)
	}
	return nil
}
