//go:build integration

package pinot_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/floehq/floe/internal/testpeer"
	"github.com/floehq/floe/pinot"
)

// On a real controller, UploadedSegments reports a segment uploaded into
// an open replacement (hidden from queries) with the rows, CRC and custom
// map of its metadata, and leaves out a To name never uploaded until it is
// uploaded (what a run resuming that replacement reads); and a start over
// the From of a reverted replacement is answered.
func TestController_UploadedSegmentsAgainstCluster(t *testing.T) {
	c := testpeer.StartPinot(t)
	ctl, err := pinot.NewController(c.ControllerURL, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const table = "resume"
	if err := ctl.EnsureTable(ctx, clusterSchema(table), clusterTable(table)); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Upload(ctx, table, buildSegment(t, table, "resume_a_0", 0, 100, 1)); err != nil {
		t.Fatal(err)
	}
	id, err := ctl.StartReplace(ctx, table, []string{"resume_a_0"}, []string{"resume_b_0", "resume_b_1"})
	if err != nil {
		t.Fatal(err)
	}
	custom := map[string]string{"floe.sourceFile": "s3://lake/data/b,1.parquet"}
	if err := ctl.Upload(ctx, table, buildSegmentWith(t, table, "resume_b_0", 0, 40, 1, custom)); err != nil {
		t.Fatal(err)
	}
	got, err := ctl.UploadedSegments(ctx, table, []string{"resume_b_0", "resume_b_1"})
	if err != nil {
		t.Fatal(err)
	}
	info, ok := got["resume_b_0"]
	if len(got) != 1 || !ok || info.TotalDocs != 40 || info.CRC == "" || info.Custom["floe.sourceFile"] != custom["floe.sourceFile"] {
		t.Fatalf("uploaded segments %+v, want only resume_b_0 with 40 rows, a CRC and its custom map", got)
	}
	wantListed(t, ctl, table, "resume_a_0")
	if err := ctl.Upload(ctx, table, buildSegmentWith(t, table, "resume_b_1", 40, 30, 1, custom)); err != nil {
		t.Fatal(err)
	}
	if got, err := ctl.UploadedSegments(ctx, table, []string{"resume_b_0", "resume_b_1"}); err != nil || len(got) != 2 ||
		got["resume_b_1"].TotalDocs != 30 {
		t.Fatalf("uploaded segments %+v (%v), want both To segments", got, err)
	}
	if err := ctl.EndReplace(ctx, table, id); err != nil {
		t.Fatal(err)
	}
	listed, err := ctl.ListSegments(ctx, table)
	slices.Sort(listed)
	if err != nil || !slices.Equal(listed, []string{"resume_b_0", "resume_b_1"}) {
		t.Fatalf("served %v (%v), want the replacement's two segments", listed, err)
	}

	// A replacement reverted, then another over the same From under new
	// names (a run that falls back, or reverts a dead run's first): the
	// start must be answered, so it asks for no cleanup.
	id, err = ctl.StartReplace(ctx, table, listed, []string{"resume_d_0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.RevertReplace(ctx, table, id); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if id, err = ctl.StartReplace(ctx, table, listed, []string{"resume_e_0"}); err != nil {
		t.Fatalf("start over the From of a reverted replacement (%s): %v", time.Since(began).Round(time.Millisecond), err)
	}
	if err := ctl.Upload(ctx, table, buildSegment(t, table, "resume_e_0", 0, 10, 1)); err != nil {
		t.Fatal(err)
	}
	if err := ctl.EndReplace(ctx, table, id); err != nil {
		t.Fatal(err)
	}
	wantListed(t, ctl, table, "resume_e_0")
}
