package pinot_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
)

// U2: every controller call is retried on 5xx, cut connections and timeouts,
// and not on other 4xx.
func TestController_Retries(t *testing.T) {
	ctx := context.Background()
	upload := func(c *pinot.Controller) error { return c.Upload(ctx, "t", tarFile(t, "a")) }
	for _, tc := range []struct {
		name     string
		kind     string
		failures []string
		call     func(c *pinot.Controller) error
		attempts int
		ok       bool
	}{
		{"upload after 5xx", "upload", []string{"500", "503", "502"}, upload, 4, true},
		{"upload after connection reset", "upload", []string{"reset", "reset"}, upload, 3, true},
		{"upload after timeout", "upload", []string{"slow"}, upload, 2, true},
		{"upload after 409", "upload", []string{"409"}, upload, 2, true},
		{"upload gives up", "upload", []string{"500", "500", "500", "500", "500"}, upload, 4, false},
		{"upload 400 is final", "upload", []string{"400"}, upload, 1, false},
		{"list after reset", "list", []string{"reset", "503"}, func(c *pinot.Controller) error {
			_, err := c.ListSegments(ctx, "t")
			return err
		}, 3, true},
		{"delete after timeout", "delete", []string{"slow", "500"}, func(c *pinot.Controller) error {
			return c.DeleteSegments(ctx, "t", []string{"x"})
		}, 3, true},
		{"start after reset", "start", []string{"reset"}, func(c *pinot.Controller) error {
			_, err := c.StartReplace(ctx, "t", []string{"x"}, []string{"y"})
			return err
		}, 2, true},
		{"schema after 429", "schema", []string{"429"}, func(c *pinot.Controller) error {
			return c.EnsureTable(ctx, &spec.Schema{Name: "there"}, &spec.TableConfig{TableName: "there"})
		}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			f.failNext(tc.kind, tc.failures...)
			c := newController(t, f, nil)
			err := tc.call(c)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			prefix := map[string]string{"upload": "upload", "list": "list", "delete": "delete", "start": "start", "schema": "schema"}[tc.kind]
			if n := f.count(prefix); n != tc.attempts {
				t.Fatalf("%d attempts, want %d (calls %q)", n, tc.attempts, f.callLog())
			}
		})
	}
}

// A start the controller refuses for good (HTTP 500 with a validation
// message) is not retried.
func TestController_StartReplaceRejected(t *testing.T) {
	f := newFake()
	f.failNext("start", "reject")
	_, err := newController(t, f, nil).StartReplace(context.Background(), "t", []string{"x"}, []string{"y"})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("want the controller's refusal, got %v", err)
	}
	if n := f.count("start"); n != 1 {
		t.Fatalf("%d attempts, want 1", n)
	}
}

// U2: end and revert are idempotent: a lost answer is settled by reading the
// lineage entry.
func TestController_EndAndRevertSettle(t *testing.T) {
	ctx := context.Background()
	t.Run("end whose answer was lost", func(t *testing.T) {
		f := newFake()
		c := newController(t, f, nil)
		id, err := c.StartReplace(ctx, "t", []string{"a"}, []string{"b"})
		if err != nil {
			t.Fatal(err)
		}
		f.applyBeforeFail = true
		f.failNext("end", "reset")
		if err := c.EndReplace(ctx, "t", id); err != nil {
			t.Fatal(err)
		}
		if n := f.count("end"); n != 1 {
			t.Fatalf("%d end attempts: the lineage said COMPLETED after the first", n)
		}
		if err := c.EndReplace(ctx, "t", id); err != nil {
			t.Fatalf("ending an ended replacement must succeed: %v", err)
		}
		if err := c.RevertReplace(ctx, "t", id); !errors.Is(err, pinot.ErrReplaceEnded) {
			t.Fatalf("revert after end: %v, want ErrReplaceEnded", err)
		}
	})
	t.Run("end of a reverted replacement", func(t *testing.T) {
		f := newFake()
		c := newController(t, f, nil)
		id, _ := c.StartReplace(ctx, "t", []string{"a"}, []string{"b"})
		if err := c.RevertReplace(ctx, "t", id); err != nil {
			t.Fatal(err)
		}
		if err := c.RevertReplace(ctx, "t", id); err != nil {
			t.Fatalf("reverting twice must succeed: %v", err)
		}
		if n := f.count("revert"); n != 1 {
			t.Fatalf("%d revert requests, want 1", n)
		}
		if err := c.EndReplace(ctx, "t", id); !errors.Is(err, pinot.ErrReplaceAborted) {
			t.Fatalf("end after revert: %v, want ErrReplaceAborted", err)
		}
		if n := f.count("end"); n != 1 {
			t.Fatalf("%d end attempts: a reverted entry can never end", n)
		}
		_, err := c.StartReplace(ctx, "t", []string{"a"}, []string{"b"})
		if !errors.Is(err, pinot.ErrSegmentNameReverted) || !strings.Contains(err.Error(), "segment b") {
			t.Fatalf("reusing a reverted To name: %v, want ErrSegmentNameReverted naming b", err)
		}
	})
	t.Run("revert of a missing entry", func(t *testing.T) {
		f := newFake()
		if err := newController(t, f, nil).RevertReplace(ctx, "t", "gone"); err != nil {
			t.Fatal(err)
		}
		wantCalls(t, f, "lineage")
	})
}
