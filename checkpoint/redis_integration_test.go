//go:build integration

package checkpoint_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/checkpoint/checkpointtest"
	"github.com/floehq/floe/internal/testpeer"
)

// TestRedis_Conformance runs the suite against a real redis-server; each
// subtest gets its own key prefix on the shared server.
func TestRedis_Conformance(t *testing.T) {
	url := testpeer.StartRedis(t)
	n := 0
	checkpointtest.Run(t, func(t *testing.T) checkpoint.Store {
		n++
		s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url, Prefix: fmt.Sprintf("floetest%d:", n)})
		if err != nil {
			t.Fatalf("NewRedis: %v", err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// TestRedis_WorkQueue runs the work queue suite against a real
// redis-server (a stream and consumer group per key prefix).
func TestRedis_WorkQueue(t *testing.T) {
	url := testpeer.StartRedis(t)
	n := 0
	checkpointtest.RunWorkQueue(t, func(t *testing.T) (checkpoint.Store, checkpoint.WorkQueue) {
		n++
		s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url, Prefix: fmt.Sprintf("floework%d:", n)})
		if err != nil {
			t.Fatalf("NewRedis: %v", err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s, s
	})
}

// TestRedis_DefaultPrefixKeys checks the documented key layout (doc.go)
// on a store with the default prefix.
func TestRedis_DefaultPrefixKeys(t *testing.T) {
	url := testpeer.StartRedis(t)
	ctx := context.Background()
	s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url})
	if err != nil {
		t.Fatalf("NewRedis: %v", err)
	}
	defer s.Close()
	if err := s.PutConnection(ctx, checkpoint.Connection{Name: "c1", Type: "rest"}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable(ctx, checkpoint.Table{Name: "orders"}); err != nil {
		t.Fatal(err)
	}
	l, err := s.AcquireLease(ctx, "orders", "r1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cp := checkpoint.Checkpoint{Table: "orders", SnapshotID: 5,
		Files: map[string]checkpoint.FileState{"f.parquet": {Segments: []string{"s"}, Rows: 1}}}
	if err := s.CommitCheckpoint(ctx, l, cp); err != nil {
		t.Fatal(err)
	}
	if err := s.PutRun(ctx, checkpoint.Run{Table: "orders", ID: "r-1", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(redisKeys(t, url), " ")
	want := "floe:v1:checkpoint:orders floe:v1:conn:c1 floe:v1:conns floe:v1:fence:orders " +
		"floe:v1:fidx-segs:orders floe:v1:fidx-stamp:orders floe:v1:fidx-units:orders " +
		"floe:v1:files:orders floe:v1:lease:orders floe:v1:runorder:orders floe:v1:runs:orders " +
		"floe:v1:table:orders floe:v1:tablechanges floe:v1:tablerev floe:v1:tables"
	if got != want {
		t.Fatalf("keys = %s\nwant   %s", got, want)
	}
}

func TestNewRedis_BadURL(t *testing.T) {
	cases := []struct{ name, url, want string }{
		{"empty", "", "empty redis URL"},
		{"scheme", "http://user:hunter2secret@127.0.0.1:6379", `scheme "http"`},
		{"unparsable", "redis://user:hunter2secret@127.0.0.1:notaport", "does not parse"},
		{"bad db", "redis://user:hunter2secret@127.0.0.1:6379/notadb", "127.0.0.1:6379"},
		{"no host", "redis://", "no host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: c.url})
			assertOneLineNoSecret(t, err, c.want)
		})
	}
}

func TestNewRedis_Unreachable(t *testing.T) {
	port := testpeer.FreePort(t) // nothing listens there
	url := fmt.Sprintf("redis://floe:hunter2secret@127.0.0.1:%d/0", port)
	_, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url, DialTimeout: time.Second})
	assertOneLineNoSecret(t, err, fmt.Sprintf("127.0.0.1:%d", port))
}

func TestNewRedis_WrongPassword(t *testing.T) {
	base := testpeer.StartRedis(t) // no password configured: AUTH is refused
	url := strings.Replace(base, "redis://", "redis://floe:hunter2secret@", 1)
	_, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url, DialTimeout: time.Second})
	assertOneLineNoSecret(t, err, strings.TrimPrefix(strings.TrimSuffix(base, "/0"), "redis://"))
}

func assertOneLineNoSecret(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("NewRedis succeeded, want an error")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Fatalf("error spans several lines: %q", msg)
	}
	if strings.Contains(msg, "hunter2secret") {
		t.Fatalf("error leaks the password: %q", msg)
	}
	if !strings.Contains(msg, want) {
		t.Fatalf("error %q does not mention %q", msg, want)
	}
	t.Logf("error line: %s", msg)
}

func BenchmarkStore_CommitCheckpoint_Redis(b *testing.B) {
	url := testpeer.StartRedis(b)
	s, err := checkpoint.NewRedis(context.Background(), checkpoint.RedisOptions{URL: url})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchCommit(b, s)
}
