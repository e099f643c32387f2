package watcher_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// echoLoader fails the way a catalog does when its error body repeats the
// credentials it received.
type echoLoader struct{ secret string }

func (l echoLoader) LoadTable(context.Context, checkpoint.Table) (*watcher.Source, error) {
	return nil, errors.New("load table: 401 Unauthorized: {\"got\":\"Bearer " + l.secret + "\"}")
}

// I7: Deps.Scrub runs over a run's error before the run is stored.
func TestWatcher_RecordScrubsRunErrors(t *testing.T) {
	const secret = "tok-4d5e6f-echoed-by-peer"
	ctx := context.Background()
	store := checkpoint.NewMemory()
	if err := store.CreateTable(ctx, checkpoint.Table{Name: "orders", Connection: "lake", Namespace: "sales", Source: "orders",
		TaskConfig: map[string]string{"schedule": "0 */5 * * * ?"}}); err != nil {
		t.Fatal(err)
	}
	w := watcher.New(watcher.Deps{Store: store, Loader: echoLoader{secret},
		Scrub: func(s string) string { return strings.ReplaceAll(s, secret, "REDACTED") }},
		watcher.Options{Owner: "t", LeaseTTL: time.Minute, WorkDir: t.TempDir()})
	if err := w.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RunOnce(ctx, "orders", "cli", nil); err == nil {
		t.Fatal("run with a failing loader succeeded")
	}
	runs, err := store.ListRuns(ctx, "orders", 10)
	if err != nil || len(runs) == 0 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	for _, r := range runs {
		if strings.Contains(r.Error, secret) || r.Status == checkpoint.RunFailed && !strings.Contains(r.Error, "Bearer REDACTED") {
			t.Fatalf("stored run error %q", r.Error)
		}
	}
}
