package notify

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// MemoryQueue is an in-process Queue for tests: messages received are
// invisible until deleted or released (visibility timeouts do not expire).
type MemoryQueue struct {
	mu       sync.Mutex
	next     int
	visible  []Message
	inFlight map[string]Message
	// Deleted counts messages deleted.
	Deleted int
	arrived chan struct{}
}

var _ Queue = (*MemoryQueue)(nil)

// NewMemoryQueue returns an empty queue.
func NewMemoryQueue() *MemoryQueue {
	return &MemoryQueue{inFlight: map[string]Message{}, arrived: make(chan struct{}, 1)}
}

// Send adds a message.
func (q *MemoryQueue) Send(body string) {
	q.mu.Lock()
	q.next++
	id := strconv.Itoa(q.next)
	q.visible = append(q.visible, Message{ID: id, Body: []byte(body)})
	q.mu.Unlock()
	select {
	case q.arrived <- struct{}{}:
	default:
	}
}

// Receive returns up to max visible messages, waiting up to wait for one.
func (q *MemoryQueue) Receive(ctx context.Context, max int, wait, _ time.Duration) ([]Message, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		q.mu.Lock()
		if n := min(max, len(q.visible)); n > 0 {
			out := append([]Message(nil), q.visible[:n]...)
			q.visible = q.visible[n:]
			for i := range out {
				q.next++
				out[i].Receipt = out[i].ID + "/" + strconv.Itoa(q.next)
				q.inFlight[out[i].Receipt] = out[i]
			}
			q.mu.Unlock()
			return out, nil
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, nil
		case <-q.arrived:
		}
	}
}

// Delete removes received messages.
func (q *MemoryQueue) Delete(_ context.Context, receipts []string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, r := range receipts {
		if _, ok := q.inFlight[r]; ok {
			delete(q.inFlight, r)
			q.Deleted++
		}
	}
	return nil
}

// Release makes a received message visible again at once.
func (q *MemoryQueue) Release(_ context.Context, receipt string, _ time.Duration) error {
	q.mu.Lock()
	if m, ok := q.inFlight[receipt]; ok {
		delete(q.inFlight, receipt)
		q.visible = append(q.visible, m)
	}
	q.mu.Unlock()
	return nil
}

// Describe reports no dead-letter queue.
func (q *MemoryQueue) Describe(context.Context) (QueueInfo, error) { return QueueInfo{}, nil }

// Len returns how many messages are visible and in flight.
func (q *MemoryQueue) Len() (visible, inFlight int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.visible), len(q.inFlight)
}
