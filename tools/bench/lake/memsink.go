package lake

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
)

// MemSink is a Pinot stand-in holding the served segments and open
// replacements in memory: a run pays it what a controller
// costs the client, one call per operation, without the local-directory
// sink's own cost of rereading and rewriting its whole served list on
// every upload, which grows with the table and is the sink's, not floe's.
// Every write asks the run's write guard first, as the real sinks do.
type MemSink struct {
	mu     sync.Mutex
	served map[string]bool
	open   map[string]replacement
	next   int
}

// replacement is an open replacement of a MemSink.
type replacement struct{ from, to []string }

// NewMemSink returns an empty MemSink.
func NewMemSink() *MemSink {
	return &MemSink{served: map[string]bool{}, open: map[string]replacement{}}
}

var _ pinot.Uploader = (*MemSink)(nil)

func (s *MemSink) EnsureTable(context.Context, *spec.Schema, *spec.TableConfig) error { return nil }

func (s *MemSink) ListSegments(context.Context, string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.served))
	for n := range s.served {
		out = append(out, n)
	}
	return out, nil
}

// Upload serves the segment unless an open replacement stages it.
func (s *MemSink) Upload(ctx context.Context, table string, seg pinot.Segment) error {
	if err := pinot.CheckGuard(ctx, pinot.Write{Op: pinot.OpUpload, Table: table, Segments: []string{seg.Name}}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.open {
		if slices.Contains(r.to, seg.Name) {
			return nil
		}
	}
	s.served[seg.Name] = true
	return nil
}

func (s *MemSink) StartReplace(ctx context.Context, table string, from, to []string) (string, error) {
	w := pinot.Write{Op: pinot.OpStartReplace, Table: table, Segments: append(slices.Clone(from), to...), Destructive: true}
	if err := pinot.CheckGuard(ctx, w); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	id := fmt.Sprint("r", s.next)
	s.open[id] = replacement{from: slices.Clone(from), to: slices.Clone(to)}
	return id, nil
}

func (s *MemSink) EndReplace(ctx context.Context, table, id string) error {
	if err := pinot.CheckGuard(ctx, pinot.Write{Op: pinot.OpEndReplace, Table: table, Destructive: true}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.open[id]
	if !ok {
		return fmt.Errorf("MemSink: end replace %s: no such open replacement", id)
	}
	delete(s.open, id)
	for _, n := range r.from {
		delete(s.served, n)
	}
	for _, n := range r.to {
		s.served[n] = true
	}
	return nil
}

func (s *MemSink) RevertReplace(ctx context.Context, table, id string) error {
	if err := pinot.CheckGuard(ctx, pinot.Write{Op: pinot.OpRevertReplace, Table: table, Destructive: true}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, id)
	return nil
}

func (s *MemSink) DeleteSegments(ctx context.Context, table string, names []string) error {
	if err := pinot.CheckGuard(ctx, pinot.Write{Op: pinot.OpDeleteSegments, Table: table, Segments: names, Destructive: true}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		delete(s.served, n)
	}
	return nil
}
