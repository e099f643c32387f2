package pinot_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/pinot/spec"
)

var errLeaseLost = errors.New("lease lost")

// guardLog is a Guard that records what it is asked and refuses from the
// refuseFrom-th question on (0: never).
type guardLog struct {
	mu         sync.Mutex
	writes     []pinot.Write
	refuseFrom int
}

func (g *guardLog) guard(_ context.Context, w pinot.Write) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes = append(g.writes, w)
	if g.refuseFrom > 0 && len(g.writes) >= g.refuseFrom {
		return errLeaseLost
	}
	return nil
}

// mutating lists the calls of the fake that change something.
func mutating(f *fakeController) []string {
	var out []string
	for _, c := range f.callLog() {
		if c != "lineage" && c != "list" {
			out = append(out, c)
		}
	}
	return out
}

// U1: a refusing guard stops every mutating call before anything is sent
// (the tar push, the metadata push, the deep-store put, lineage steps,
// deletes, schema and table writes), and its error comes back wrapped.
func TestController_GuardRefusalSendsNothing(t *testing.T) {
	calls := map[string]func(ctx context.Context, c *pinot.Controller) error{
		"EnsureTable": func(ctx context.Context, c *pinot.Controller) error {
			return c.EnsureTable(ctx, &spec.Schema{Name: "new"}, &spec.TableConfig{TableName: "new"})
		},
		"Upload": func(ctx context.Context, c *pinot.Controller) error { return c.Upload(ctx, "t", segmentTarGz(t, "a")) },
		"StartReplace": func(ctx context.Context, c *pinot.Controller) error {
			_, err := c.StartReplace(ctx, "t", []string{"a"}, []string{"b"})
			return err
		},
		"EndReplace":     func(ctx context.Context, c *pinot.Controller) error { return c.EndReplace(ctx, "t", "id-1") },
		"RevertReplace":  func(ctx context.Context, c *pinot.Controller) error { return c.RevertReplace(ctx, "t", "id-1") },
		"DeleteSegments": func(ctx context.Context, c *pinot.Controller) error { return c.DeleteSegments(ctx, "t", []string{"a"}) },
	}
	for name, call := range calls {
		for _, deep := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "", true: " with deep store"}[deep], func(t *testing.T) {
				f := newFake()
				f.lineage["id-1"] = map[string]any{"segmentsFrom": []string{"a"}, "segmentsTo": []string{"b"}, "state": "IN_PROGRESS"}
				c := newController(t, f, nil)
				ds := &memDeepStore{}
				if deep {
					c.DeepStore = ds
				}
				g := &guardLog{refuseFrom: 1}
				err := call(pinot.WithGuard(context.Background(), g.guard), c)
				if !errors.Is(err, errLeaseLost) {
					t.Fatalf("want the guard's error wrapped, got %v", err)
				}
				if m := mutating(f); len(m) != 0 {
					t.Fatalf("sent %q although the guard refused", m)
				}
				if len(g.writes) != 1 || g.writes[0].Table == "" {
					t.Fatalf("guard asked %+v", g.writes)
				}
				if ds.puts != 0 || ds.deletes != 0 {
					t.Fatalf("deep store changed: %d puts, %d deletes", ds.puts, ds.deletes)
				}
			})
		}
	}
}

// U1: the guard is asked before every attempt, retries included, and a
// refusal stops the retries.
func TestController_GuardBeforeEveryAttempt(t *testing.T) {
	f := newFake()
	f.failNext("upload", "503", "reset")
	c := newController(t, f, nil)
	g := &guardLog{}
	if err := c.Upload(pinot.WithGuard(context.Background(), g.guard), "t", tarFile(t, "a")); err != nil {
		t.Fatal(err)
	}
	if len(g.writes) != 3 || f.count("upload") != 3 {
		t.Fatalf("guard asked %d times for %d attempts, want 3 and 3", len(g.writes), f.count("upload"))
	}
	want := pinot.Write{Op: pinot.OpUpload, Table: "t", Segments: []string{"a"}}
	if w := g.writes[2]; w.Op != want.Op || w.Table != want.Table || strings.Join(w.Segments, ",") != "a" || w.Destructive {
		t.Fatalf("write %+v, want %+v", w, want)
	}

	f = newFake()
	f.failNext("upload", "503", "503")
	c = newController(t, f, nil)
	g = &guardLog{refuseFrom: 2}
	err := c.Upload(pinot.WithGuard(context.Background(), g.guard), "t", tarFile(t, "a"))
	if !errors.Is(err, errLeaseLost) || f.count("upload") != 1 {
		t.Fatalf("err %v after %d attempts; want the guard's refusal after 1", err, f.count("upload"))
	}
}

func TestController_DestructiveWrites(t *testing.T) {
	f := newFake()
	c := newController(t, f, nil)
	g := &guardLog{}
	ctx := pinot.WithGuard(context.Background(), g.guard)
	if err := pinot.Replace(ctx, c, "t", []string{"a"}, []pinot.Segment{tarFile(t, "b")}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSegments(ctx, "t", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range g.writes {
		got = append(got, w.Op+map[bool]string{true: "!", false: ""}[w.Destructive])
	}
	want := "start replace!,upload segment,end replace!,delete segments!"
	if strings.Join(got, ",") != want {
		t.Fatalf("guard asked %s, want %s", strings.Join(got, ","), want)
	}
}

// U4: header values (Authorization) echoed in an error body never reach the
// error text.
func TestAPIError_ScrubsHeaderValues(t *testing.T) {
	f := newFake()
	f.echoHeader = "Authorization"
	f.failNext("upload", "400")
	c := newController(t, f, map[string]string{"Authorization": "Basic c2VjcmV0OnBhc3N3b3Jk"})
	err := c.Upload(context.Background(), "t", tarFile(t, "a"))
	var api *pinot.APIError
	if !errors.As(err, &api) || api.Status != 400 {
		t.Fatalf("want APIError 400, got %v", err)
	}
	if strings.Contains(err.Error(), "c2VjcmV0OnBhc3N3b3Jk") || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("error leaks the header value: %v", err)
	}
}
