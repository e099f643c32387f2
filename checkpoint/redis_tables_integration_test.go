//go:build integration

package checkpoint_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/testpeer"
)

// rawRedis is a client of its own on the server at url, for reading and
// breaking what the store wrote.
func rawRedis(t *testing.T, url string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

func openRedis(t *testing.T, url, prefix string) *checkpoint.Redis {
	t.Helper()
	s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url, Prefix: prefix})
	if err != nil {
		t.Fatalf("NewRedis: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// The stored layout of a table record (doc.go, FormatV2): "revision"
// first, then "v":2; the counter and the change stream entry agree.
func TestRedis_TableRecordLayout(t *testing.T) {
	url := testpeer.StartRedis(t)
	ctx := context.Background()
	s := openRedis(t, url, "")
	raw := rawRedis(t, url)
	if err := s.CreateTable(ctx, checkpoint.Table{Name: "orders", Source: "o"}); err != nil {
		t.Fatal(err)
	}
	rec, err := raw.Get(ctx, "floe:v1:table:orders").Result()
	if err != nil || !strings.HasPrefix(rec, `{"revision":1,"v":2,"name":"orders"`) {
		t.Fatalf("stored record %q (%v), want it to start with revision 1 then v 2", rec, err)
	}
	if rev, err := raw.Get(ctx, "floe:v1:tablerev").Result(); err != nil || rev != "1" {
		t.Fatalf("revision counter = %q (%v), want 1", rev, err)
	}
	entries, err := raw.XRange(ctx, "floe:v1:tablechanges", "-", "+").Result()
	if err != nil || len(entries) != 1 || entries[0].ID != "1-0" || entries[0].Values["name"] != "orders" ||
		entries[0].Values["table"] != rec {
		t.Fatalf("change stream = %+v (%v), want entry 1-0 with the record", entries, err)
	}
}

// A table written by a FormatV1 build has no revision: it reads as
// revision 0, and a compare-and-set on 0 upgrades it.
func TestRedis_UpdateV1Table(t *testing.T) {
	url := testpeer.StartRedis(t)
	ctx := context.Background()
	s := openRedis(t, url, "")
	raw := rawRedis(t, url)
	old := `{"v":1,"name":"legacy","connection":"c","namespace":"ns","source":"src","taskConfig":{"schedule":"@hourly"},` +
		`"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}`
	if err := raw.Set(ctx, "floe:v1:table:legacy", old, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := raw.SAdd(ctx, "floe:v1:tables", "legacy").Err(); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetTable(ctx, "legacy")
	if err != nil || got.Revision != 0 || got.TaskConfig["schedule"] != "@hourly" {
		t.Fatalf("V1 table read as %+v (%v), want revision 0", got, err)
	}
	got.TaskConfig = map[string]string{"schedule.paused": "@hourly"}
	stored, err := s.UpdateTable(ctx, got)
	if err != nil || stored.Revision != 1 || stored.Source != "src" {
		t.Fatalf("UpdateTable of a V1 table = %+v, %v; want revision 1", stored, err)
	}
}

// A lost revision counter does not break table writes: the next revision
// continues above the change stream's newest entry.
func TestRedis_TableRevisionCounterLost(t *testing.T) {
	url := testpeer.StartRedis(t)
	ctx := context.Background()
	s := openRedis(t, url, "")
	raw := rawRedis(t, url)
	for _, n := range []string{"a", "b", "c"} {
		if err := s.CreateTable(ctx, checkpoint.Table{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Del(ctx, "floe:v1:tablerev").Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTable(ctx, checkpoint.Table{Name: "a"}); err != nil {
		t.Fatalf("PutTable after the counter was lost: %v", err)
	}
	got, err := s.GetTable(ctx, "a")
	if err != nil || got.Revision != 4 {
		t.Fatalf("revision after the counter was lost = %d (%v), want 4", got.Revision, err)
	}
}

// Redis briefly away: a watch whose connection is killed keeps going
// from the last revision it delivered, so the changes made meanwhile all
// arrive, in order, none skipped.
func TestRedis_WatchTablesSurvivesDroppedConnections(t *testing.T) {
	url := testpeer.StartRedis(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := openRedis(t, url, "")
	raw := rawRedis(t, url)
	ch, err := s.WatchTables(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	next := int64(1)
	for round := range 3 {
		if err := raw.ClientKillByFilter(ctx, "TYPE", "normal").Err(); err != nil {
			t.Fatalf("CLIENT KILL: %v", err)
		}
		for i := range 3 {
			if err := s.PutTable(ctx, checkpoint.Table{Name: "t" + string(rune('a'+i))}); err != nil {
				t.Fatalf("round %d: PutTable: %v", round, err)
			}
		}
		for range 3 {
			select {
			case c, ok := <-ch:
				if !ok || c.Revision != next {
					t.Fatalf("round %d: change %+v (open %v), want revision %d", round, c, ok, next)
				}
				next++
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: revision %d never arrived after the connection drop", round, next)
			}
		}
	}
}
