package checkpoint

import (
	"context"
	"sync"
)

// changeLog is the in-process announcement of table changes for the
// stores that live in one process (Bolt, Memory): it keeps the last
// changeBacklog changes and wakes every watcher when one is added.
// The store appends under its own write lock, so changes arrive in
// revision order.
type changeLog struct {
	mu      sync.Mutex
	base    int64         // revision just before entries[0]
	entries []TableChange // revisions base+1, base+2, ...
	wake    chan struct{} // closed and replaced on every append
	closed  bool
}

// newChangeLog returns a log whose next change has revision rev+1.
func newChangeLog(rev int64) *changeLog {
	return &changeLog{base: rev, wake: make(chan struct{})}
}

// append adds c, which must be the revision after the last one; a jump
// (which a correct store never makes) restarts the backlog there, so
// watchers behind it see the gap and re-read the store.
func (l *changeLog) append(c TableChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.Revision != l.base+int64(len(l.entries))+1 {
		l.base, l.entries = c.Revision-1, nil
	}
	l.entries = append(l.entries, c)
	if n := len(l.entries) - changeBacklog; n > 0 {
		l.entries = append(l.entries[:0:0], l.entries[n:]...)
		l.base += int64(n)
	}
	close(l.wake)
	l.wake = make(chan struct{})
}

// close ends every watch.
func (l *changeLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.wake)
	}
}

// watch delivers the changes after revision after until ctx ends or the
// log closes; it closes the channel early when the backlog no longer
// holds the change the reader needs next.
func (l *changeLog) watch(ctx context.Context, after int64) <-chan TableChange {
	ch := make(chan TableChange, 16)
	go func() {
		defer close(ch)
		cursor := after
		for {
			pending, wake, ok := l.since(cursor)
			if !ok {
				return
			}
			for _, c := range pending {
				if c.Table != nil {
					t := cloneTable(*c.Table) // every reader gets its own maps
					c.Table = &t
				}
				select {
				case ch <- c:
					cursor = c.Revision
				case <-ctx.Done():
					return
				}
			}
			if len(pending) > 0 {
				continue
			}
			select {
			case <-wake:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// since returns the changes after cursor and the channel that wakes the
// reader when there are none yet; ok is false when the log is closed or
// no longer holds revision cursor+1.
func (l *changeLog) since(cursor int64) (pending []TableChange, wake <-chan struct{}, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || cursor < l.base {
		return nil, nil, false
	}
	if i := cursor - l.base; i < int64(len(l.entries)) {
		pending = append(pending, l.entries[i:]...)
	}
	return pending, l.wake, true
}
