package notify_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floehq/floe/notify"
)

// failingTables is a store whose reads fail.
type failingTables struct{ notify.Tables }

func (failingTables) TableRevision(context.Context) (int64, error) {
	return 0, errors.New("store unavailable")
}

// N1: handled, unrelated and malformed messages are deleted; malformed
// ones are kept when the queue asks; a message whose tables could not be
// read is released for another delivery.
func TestConsumer_HandleBatch(t *testing.T) {
	body := func(name string) notify.Message {
		return notify.Message{ID: name, Receipt: name, Body: readFixture(t, name)}
	}
	cases := []struct {
		name        string
		store       notify.Tables
		keep        bool
		msgs        []notify.Message
		wantDeleted int
		wantBack    int // visible again
	}{
		{"matched, unrelated and malformed are deleted", nil, false,
			[]notify.Message{body("s3tables/update-metadata-location.json"), body("unrelated/other-detail-type.json"), body("bad/not-json.txt")}, 3, 0},
		{"malformed kept for the dead-letter queue", nil, true, []notify.Message{body("bad/truncated.json"), body("glue/update-table.json")}, 1, 0},
		{"a store failure releases the message", failingTables{}, false, []notify.Message{body("glue/update-table.json")}, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := c.store
			if store == nil {
				store = lake(t)
			}
			q := notify.NewMemoryQueue()
			for _, m := range c.msgs {
				q.Send(string(m.Body))
			}
			got, err := q.Receive(context.Background(), 10, time.Millisecond, time.Minute)
			if err != nil || len(got) != len(c.msgs) {
				t.Fatalf("Receive = %d, %v", len(got), err)
			}
			hub := notify.NewHub(store, newFakeRunner(), nil, nil, notify.Options{})
			con := notify.NewConsumer(q, hub, nil, notify.ConsumerOptions{Name: "q", KeepMalformed: c.keep})
			con.HandleBatch(context.Background(), got)
			visible, inFlight := q.Len()
			if q.Deleted != c.wantDeleted || visible != c.wantBack {
				t.Fatalf("deleted %d, visible again %d, in flight %d; want %d deleted, %d visible",
					q.Deleted, visible, inFlight, c.wantDeleted, c.wantBack)
			}
		})
	}
}

// The consumer runs until closed and hands a queued event to the runner.
func TestConsumer_OpenClose(t *testing.T) {
	r := newFakeRunner()
	hub := notify.NewHub(lake(t), r, nil, nil, notify.Options{Debounce: time.Millisecond})
	hub.Open(context.Background())
	q := notify.NewMemoryQueue()
	con := notify.NewConsumer(q, hub, nil, notify.ConsumerOptions{Name: "q", Wait: 50 * time.Millisecond})
	if err := con.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	q.Send(string(readFixture(t, "s3tables/update-metadata-location.json")))
	if got := <-r.got; got != "clicks" {
		t.Fatalf("run of %s, want clicks", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := con.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := hub.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if q.Deleted != 1 {
		t.Fatalf("deleted %d messages, want 1", q.Deleted)
	}
}
