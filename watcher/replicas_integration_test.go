//go:build integration

package watcher_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// overlapBuilder fails the test when two builds of the same table overlap,
// wherever they run: the lease (I4) must prevent it.
type overlapBuilder struct {
	t        *testing.T
	mu       sync.Mutex
	inFlight map[string]string // table → replica building it
	builds   map[string]int    // replica → builds done
	inner    *fakeBuilder
}

func (b *overlapBuilder) forReplica(name string) watcher.SegmentBuilder {
	return builderFunc(func(ctx context.Context, req watcher.BuildRequest) (watcher.BuildResult, error) {
		b.mu.Lock()
		if other, busy := b.inFlight[req.Table.Name]; busy {
			b.mu.Unlock()
			b.t.Errorf("table %s built by %s and %s at once (I4)", req.Table.Name, other, name)
			return watcher.BuildResult{}, fmt.Errorf("overlap")
		}
		b.inFlight[req.Table.Name] = name
		b.builds[name]++
		b.mu.Unlock()
		time.Sleep(150 * time.Millisecond) // widen the window for an overlap
		defer func() { b.mu.Lock(); delete(b.inFlight, req.Table.Name); b.mu.Unlock() }()
		return b.inner.Build(ctx, req)
	})
}

type builderFunc func(context.Context, watcher.BuildRequest) (watcher.BuildResult, error)

func (f builderFunc) Build(ctx context.Context, r watcher.BuildRequest) (watcher.BuildResult, error) {
	return f(ctx, r)
}

// Two replicas share one real Redis and three tables scheduled every
// second. Runs never overlap per table, both replicas do work, and every
// table ends consistent with its Iceberg snapshot.
func TestWatcher_ReplicasShareRedis(t *testing.T) {
	url := testpeer.StartRedis(t)
	ctx := context.Background()
	lk := newLake(t)
	up := pinot.NewLocalDir(t.TempDir())
	ob := &overlapBuilder{t: t, inFlight: map[string]string{}, builds: map[string]int{}, inner: &fakeBuilder{fail: map[string]bool{}}}
	tables := []string{"t1", "t2", "t3"}
	var stores []checkpoint.Store
	var replicas []*watcher.Watcher
	for i := 0; i < 2; i++ {
		s, err := checkpoint.NewRedis(ctx, checkpoint.RedisOptions{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
		name := fmt.Sprintf("replica-%d", i)
		replicas = append(replicas, watcher.New(
			watcher.Deps{Store: s, Loader: loader{lk}, Builder: ob.forReplica(name), Uploader: up},
			watcher.Options{Owner: name, LeaseTTL: 10 * time.Second, MaxConcurrentRuns: 3, RefreshInterval: 200 * time.Millisecond, WorkDir: t.TempDir()}))
	}
	for _, name := range tables {
		err := stores[0].CreateTable(ctx, checkpoint.Table{Name: name, Connection: "c", Namespace: "ns", Source: "events",
			TaskConfig: map[string]string{watcher.KeySchedule: "* * * * * ?"},
			SchemaJSON: []byte(`{"schemaName":"` + name + `"}`), TableConfigJSON: []byte(`{"tableName":"` + name + `"}`)})
		if err != nil {
			t.Fatal(err)
		}
	}
	lk.appendRows(5)
	for _, w := range replicas {
		if err := w.Open(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close(ctx) })
	}
	for round := 0; round < 4; round++ {
		time.Sleep(1200 * time.Millisecond)
		lk.appendRows(3)
	}
	want := lk.load().CurrentSnapshot().SnapshotID
	deadline := time.Now().Add(20 * time.Second)
	for _, name := range tables {
		for {
			cp, err := stores[1].GetCheckpointSummary(ctx, name)
			if err == nil && cp.SnapshotID == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("table %s never reached snapshot %d (at %+v, %v)", name, want, cp, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		cp, _ := stores[0].GetCheckpoint(ctx, name)
		segs, err := up.ListSegments(ctx, name)
		if err != nil || len(segs) != len(cp.Files) || len(cp.Files) != 5 {
			t.Fatalf("table %s: %d segments, %d checkpoint files, want 5 each (%v)", name, len(segs), len(cp.Files), err)
		}
	}
	ob.mu.Lock()
	defer ob.mu.Unlock()
	t.Logf("builds per replica: %v", ob.builds)
}
