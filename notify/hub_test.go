package notify_test

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/notify"
	"github.com/floehq/floe/watcher"
)

// fakeRunner records the runs it is asked for.
type fakeRunner struct {
	mu    sync.Mutex
	calls []string
	err   error
	got   chan string
}

func newFakeRunner() *fakeRunner { return &fakeRunner{got: make(chan string, 100)} }

func (r *fakeRunner) Notify(_ context.Context, table string, _ time.Time) (watcher.NotifyResult, error) {
	r.mu.Lock()
	r.calls = append(r.calls, table)
	err := r.err
	r.mu.Unlock()
	r.got <- table
	return watcher.NotifyResult{RunID: "run-" + table}, err
}

func (r *fakeRunner) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]string(nil), r.calls...)
	sort.Strings(out)
	return out
}

// countingMetrics counts events by outcome and reason.
type countingMetrics struct {
	mu     sync.Mutex
	counts map[string]int
}

func newCountingMetrics() *countingMetrics { return &countingMetrics{counts: map[string]int{}} }

func (m *countingMetrics) add(k string) {
	m.mu.Lock()
	m.counts[k]++
	m.mu.Unlock()
}
func (m *countingMetrics) EventReceived(kind string)        { m.add("received:" + kind) }
func (m *countingMetrics) EventMatched(kind string)         { m.add("matched:" + kind) }
func (m *countingMetrics) EventIgnored(kind, reason string) { m.add("ignored:" + reason) }
func (m *countingMetrics) EventFailed(kind string)          { m.add("failed:" + kind) }
func (m *countingMetrics) get(k string) int                 { m.mu.Lock(); defer m.mu.Unlock(); return m.counts[k] }

// lake registers tables of every kind: Glue, S3 Tables (native and REST)
// and a SQL catalog whose tables match by location only.
func lake(t *testing.T) *checkpoint.Memory {
	t.Helper()
	ctx := context.Background()
	s := checkpoint.NewMemory()
	conns := []checkpoint.Connection{
		{Name: "glue-eu", Type: "glue", Props: map[string]string{"region": "eu-west-1", "catalog-id": "111122223333"}},
		{Name: "glue-any", Type: "glue"},
		{Name: "tables", Type: "s3tables", Props: map[string]string{"arn": "arn:aws:s3tables:us-east-1:111122223333:bucket/lake"}},
		{Name: "tables-rest", Type: "rest", Props: map[string]string{"uri": "https://s3tables.us-east-1.amazonaws.com/iceberg",
			"warehouse": "arn:aws:s3tables:us-east-1:111122223333:bucket/other"}},
		{Name: "pg", Type: "sql"},
	}
	for _, c := range conns {
		if err := s.PutConnection(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	tables := []checkpoint.Table{
		{Name: "orders", Connection: "glue-eu", Namespace: "sales", Source: "orders"},
		{Name: "orders_copy", Connection: "glue-eu", Namespace: "sales", Source: "orders"},
		{Name: "orders_us", Connection: "glue-any", Namespace: "sales", Source: "orders_us"},
		{Name: "clicks", Connection: "tables", Namespace: "web", Source: "clicks"},
		{Name: "clicks_other", Connection: "tables-rest", Namespace: "web", Source: "clicks"},
		{Name: "events", Connection: "pg", Namespace: "db", Source: "events"},
		{Name: "paused", Connection: "pg", Namespace: "db", Source: "paused", TaskConfig: map[string]string{"schedule.paused": "* * * * *"}},
	}
	for _, tb := range tables {
		if err := s.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	locs := map[string]string{
		"events": "s3://lakehouse/warehouse/db/events/metadata/00001-a.metadata.json",
		"orders": "s3a://lakehouse/warehouse/sales.db/orders/metadata/00011-a.metadata.json",
	}
	for name, loc := range locs {
		lease, err := s.AcquireLease(ctx, name, "test", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CommitCheckpoint(ctx, lease, checkpoint.Checkpoint{Table: name, SnapshotID: 1, MetadataLocation: loc}); err != nil {
			t.Fatal(err)
		}
		if err := s.ReleaseLease(ctx, lease); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// N2: each event triggers exactly the tables whose source it names.
func TestHub_Handle_Matches(t *testing.T) {
	store := lake(t)
	glueUS := glueOrders
	glueUS.Region, glueUS.Table = "us-east-1", "orders_us"
	glueWrongRegion := glueOrders
	glueWrongRegion.Region = "us-east-1"
	glueWrongAccount := glueOrders
	glueWrongAccount.Catalog = "999999999999"
	clicksOtherBucket := s3TablesClicks
	clicksOtherBucket.Catalog = "arn:aws:s3tables:us-east-1:111122223333:bucket/other"
	clicksOtherBucket.MetadataLocation = ""
	eventsS3 := notify.Event{Kind: notify.KindS3, MetadataLocation: "s3://lakehouse/warehouse/db/events/metadata/00002-b.metadata.json"}
	nearMiss := notify.Event{Kind: notify.KindS3, MetadataLocation: "s3://lakehouse/warehouse/db/events2/metadata/00002-b.metadata.json"}
	cases := []struct {
		name string
		ev   notify.Event
		want []string
	}{
		{"glue names both bindings of one source", glueOrders, []string{"orders", "orders_copy"}},
		{"glue without region or catalog id on the connection", glueUS, []string{"orders_us"}},
		{"glue from another region", glueWrongRegion, nil},
		{"glue of another catalog", glueWrongAccount, nil},
		{"s3 tables by bucket, namespace and name", s3TablesClicks, []string{"clicks"}},
		{"s3 tables through the REST endpoint", clicksOtherBucket, []string{"clicks_other"}},
		{"s3 metadata file under a checkpoint's location", eventsS3, []string{"events"}},
		{"s3 under an s3a:// location", s3Orders, []string{"orders"}},
		{"a location that only shares a prefix", nearMiss, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, m := newFakeRunner(), newCountingMetrics()
			hub := notify.NewHub(store, r, m, nil, notify.Options{Debounce: time.Millisecond})
			hub.Open(context.Background())
			defer hub.Close(context.Background())
			n, err := hub.Handle(context.Background(), "q", nil, []notify.Event{c.ev}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if n != len(c.want) {
				t.Fatalf("Handle matched %d tables, want %d (%v)", n, len(c.want), c.want)
			}
			for range c.want {
				<-r.got
			}
			if got := r.names(); !reflect.DeepEqual(got, c.want) && len(c.want) > 0 {
				t.Fatalf("runs of %v, want %v", got, c.want)
			}
			if len(c.want) == 0 && m.get("ignored:"+notify.ReasonUnmatched) != 1 {
				t.Fatalf("unmatched event not counted: %v", m.counts)
			}
		})
	}
}

// A queue restricted to some connections triggers only their tables.
func TestHub_Handle_Connections(t *testing.T) {
	r := newFakeRunner()
	hub := notify.NewHub(lake(t), r, nil, nil, notify.Options{Debounce: time.Millisecond})
	n, err := hub.Handle(context.Background(), "q", []string{"pg"}, []notify.Event{glueOrders}, time.Now())
	if err != nil || n != 0 {
		t.Fatalf("Handle = %d, %v; want no match outside the queue's connections", n, err)
	}
}

// N3: notifications of one table within the debounce window start one run.
func TestHub_Debounce(t *testing.T) {
	r := newFakeRunner()
	hub := notify.NewHub(lake(t), r, nil, nil, notify.Options{Debounce: 300 * time.Millisecond, MaxDelay: time.Minute})
	hub.Open(context.Background())
	defer hub.Close(context.Background())
	for range 20 {
		if _, err := hub.Handle(context.Background(), "q", nil, []notify.Event{s3TablesClicks}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	<-r.got
	time.Sleep(600 * time.Millisecond) // a second run would have been asked for by now
	if got := r.names(); len(got) != 1 {
		t.Fatalf("20 notifications within the window asked for %d runs (%v), want 1", len(got), got)
	}
	if s, ok := hub.LastEvent("clicks"); !ok || s.Event.Table != "clicks" || s.Via != "q" {
		t.Fatalf("LastEvent(clicks) = %+v, %v", s, ok)
	}
}

// The webhook: unknown tables are refused, paused ones ignore the call,
// calls beyond the rate are refused with a wait.
func TestHub_Webhook(t *testing.T) {
	r, m := newFakeRunner(), newCountingMetrics()
	hub := notify.NewHub(lake(t), r, m, nil, notify.Options{Debounce: time.Millisecond, WebhookPerMinute: 2})
	hub.Open(context.Background())
	defer hub.Close(context.Background())
	ctx, now := context.Background(), time.Now()
	if _, _, err := hub.Webhook(ctx, "nope", notify.Event{}, now); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Fatalf("Webhook(unknown) = %v, want ErrNotFound", err)
	}
	if ignored, _, err := hub.Webhook(ctx, "paused", notify.Event{}, now); err != nil || !ignored {
		t.Fatalf("Webhook(paused) = %v, %v; want ignored", ignored, err)
	}
	for i := range 2 {
		if ignored, _, err := hub.Webhook(ctx, "events", notify.Event{}, now); err != nil || ignored {
			t.Fatalf("Webhook #%d = %v, %v", i, ignored, err)
		}
	}
	<-r.got // the two calls' window closed: one run
	_, wait, err := hub.Webhook(ctx, "events", notify.Event{}, now)
	if !errors.Is(err, notify.ErrRateLimited) || wait <= 0 {
		t.Fatalf("third call in a minute = %v (wait %s), want ErrRateLimited", err, wait)
	}
	if _, _, err := hub.Webhook(ctx, "events", notify.Event{}, now.Add(61*time.Second)); err != nil {
		t.Fatalf("call a minute later = %v", err)
	}
	if m.get("ignored:"+notify.ReasonRateLimited) != 1 || m.get("ignored:"+notify.ReasonPaused) != 1 {
		t.Fatalf("counts = %v", m.counts)
	}
}
