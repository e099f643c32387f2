package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/catalog/awsaccess"
)

// deniedFirst is a catalog whose listing is denied the first n times, as
// a freshly created role's is until IAM has propagated it.
type deniedFirst struct {
	n, calls int
}

func (d *deniedFirst) ListNamespaces(context.Context, []string, PageRequest) (Page[Namespace], error) {
	d.calls++
	if d.calls <= d.n {
		return Page[Namespace]{}, &Error{Op: "list databases in", Resource: "glue catalog", Permission: "glue:GetDatabases",
			Kind: ErrAccessDenied, Err: errors.New("not authorized to perform: glue:GetDatabases")}
	}
	return Page[Namespace]{Items: []Namespace{}}, nil
}
func (d *deniedFirst) ListTables(context.Context, []string, PageRequest) (Page[TableIdent], error) {
	return Page[TableIdent]{}, nil
}
func (d *deniedFirst) LoadTable(context.Context, TableIdent) (*Table, error) { return nil, ErrNotFound }
func (d *deniedFirst) Describe(context.Context, TableIdent) (TableInfo, error) {
	return TableInfo{}, ErrNotFound
}
func (d *deniedFirst) Validate(ctx context.Context) Report {
	return validate(ctx, d, awsaccess.GlueNative, "glue", nil)
}
func (d *deniedFirst) Close() error { return nil }

// recordSleep records the pauses instead of sleeping.
func recordSleep(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }
}

func TestValidateWithRetry(t *testing.T) {
	t.Run("granted after propagation", func(t *testing.T) {
		var waits []time.Duration
		rep := ValidateWithRetry(t.Context(), &deniedFirst{n: 3}, ValidateOptions{PropagationWait: time.Minute, Sleep: recordSleep(&waits)})
		if !rep.OK || len(waits) != 3 || waits[0] != 2*time.Second || waits[2] != 8*time.Second {
			t.Fatalf("report %+v after waits %v; want ok after 2s, 4s, 8s", rep, waits)
		}
		if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "granted after 14s") || !strings.Contains(rep.Notes[0], PropagationNote) {
			t.Errorf("notes = %q, want the propagation note with 14s", rep.Notes)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		var waits []time.Duration
		rep := ValidateWithRetry(t.Context(), &deniedFirst{n: 1000}, ValidateOptions{PropagationWait: 40 * time.Second, Sleep: recordSleep(&waits)})
		var total time.Duration
		for _, w := range waits {
			total += w
		}
		if rep.OK || total != 40*time.Second || rep.Steps[0].Permission != "glue:GetDatabases" {
			t.Fatalf("report %+v after %v (%v); want a failure naming glue:GetDatabases after exactly 40s", rep, total, waits)
		}
		if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "still denied after retrying for 40s") || !strings.Contains(rep.Notes[0], PropagationNote) {
			t.Errorf("notes = %q", rep.Notes)
		}
	})
	t.Run("no wait: one attempt, still the note", func(t *testing.T) {
		d := &deniedFirst{n: 1}
		rep := ValidateWithRetry(t.Context(), d, ValidateOptions{})
		if rep.OK || d.calls != 1 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], PropagationNote) {
			t.Fatalf("report %+v after %d calls; want one failed attempt with the note", rep, d.calls)
		}
	})
	t.Run("other failures are not retried", func(t *testing.T) {
		var waits []time.Duration
		rep := ValidateWithRetry(t.Context(), &failing{}, ValidateOptions{PropagationWait: time.Minute, Sleep: recordSleep(&waits)})
		if rep.OK || len(waits) != 0 || len(rep.Notes) != 0 {
			t.Fatalf("report %+v after waits %v; want one failure, no retry, no note", rep, waits)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		d := &deniedFirst{n: 1000}
		rep := ValidateWithRetry(ctx, d, ValidateOptions{PropagationWait: time.Hour})
		if rep.OK || d.calls != 1 {
			t.Fatalf("report %+v after %d calls; want one attempt when ctx is done", rep, d.calls)
		}
	})
}

// failing fails listing for a reason other than a denial.
type failing struct{ deniedFirst }

func (*failing) ListNamespaces(context.Context, []string, PageRequest) (Page[Namespace], error) {
	return Page[Namespace]{}, &Error{Op: "list", Kind: ErrUnreachable, Err: errors.New("connection refused")}
}
func (f *failing) Validate(ctx context.Context) Report {
	return validate(ctx, f, awsaccess.GlueNative, "glue", nil)
}
