//go:build integration

package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/floehq/floe/checkpoint"
)

// demoFileRows is the rows of each file the demo appends (startDemoWith).
const demoFileRows = 200

// The runs table and charts say what each run did, as the API records it
// and as the demo's lake explains it: the demo appends one file of 200 rows
// per snapshot, so an append run adds as many files as the snapshot's live
// files grew (one per snapshot it synced, not the running total), each of
// 200 rows; the files chart's bar is the files converted; a merge (small
// segments packed again, mergeSmallUnits 3 here) is labelled as one, with
// its rebuilt rows apart from the rows it added.
func testRunsSayWhatTheyDid(t *testing.T, tb *tab, base string) {
	runs := waitForMerge(t, base)
	openAt(tb, base, testReadToken, "#/tables/"+demoTable)
	tb.waitJS("the runs table with the merge", `document.querySelector('#runs tr[data-kind="merge"]')`)
	shown := map[string]bool{}
	for _, id := range eval[[]string](tb, `[...document.querySelectorAll("#runs tr[data-run]")].map((tr) => tr.dataset.run)`) {
		shown[id] = true
	}
	appends, merges := 0, 0
	for i, r := range runs {
		if r.Status != checkpoint.RunCompleted || r.Kind == "" || !shown[r.ID] {
			continue
		}
		prev := previousCompleted(runs[i+1:])
		switch r.Kind {
		case checkpoint.RunAppend, checkpoint.RunBackfill:
			if prev == nil {
				continue
			}
			if grew := r.LiveFiles - prev.LiveFiles; r.FilesAdded != grew || r.FilesRebuilt != 0 || r.RowsAdded != int64(demoFileRows*grew) {
				t.Fatalf("append run %s: %d files and %d rows added, %d rebuilt; the snapshot's live files grew by %d (%d → %d)",
					r.ID, r.FilesAdded, r.RowsAdded, r.FilesRebuilt, grew, prev.LiveFiles, r.LiveFiles)
			}
			appends++
		case checkpoint.RunMerge:
			if r.FilesRebuilt < 2 || r.RowsRebuilt != int64(demoFileRows*r.FilesRebuilt) || r.RowsAdded != int64(demoFileRows*r.FilesAdded) ||
				r.Rows != r.RowsAdded+r.RowsRebuilt || r.SegmentsDeleted == 0 {
				t.Fatalf("merge run %s: %+v", r.ID, r)
			}
			checkMergeRow(t, tb, r)
			merges++
		}
		checkRunRow(t, tb, r)
	}
	if appends < 2 || merges < 1 {
		t.Fatalf("checked %d append runs and %d merges; the demo's history should hold 2+ and 1+", appends, merges)
	}
	tb.screenshot("runs-kinds")
}

// waitForMerge waits until the demo table's history holds a completed
// merge after two completed appends, and returns the runs (newest first).
func waitForMerge(t *testing.T, base string) []checkpoint.Run {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		var got struct{ Runs []checkpoint.Run }
		apiGet(t, base+"/api/v1/tables/"+demoTable+"/runs?limit=20", testReadToken, &got)
		appends := 0
		for _, r := range got.Runs {
			if r.Status == checkpoint.RunCompleted && r.Kind == checkpoint.RunAppend {
				appends++
			}
			if r.Status == checkpoint.RunCompleted && r.Kind == checkpoint.RunMerge && appends >= 2 {
				return got.Runs
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatal("no merge run after two appends within 90s")
	return nil
}

func previousCompleted(older []checkpoint.Run) *checkpoint.Run {
	for i := range older {
		if older[i].Status == checkpoint.RunCompleted && older[i].Kind != "" {
			return &older[i]
		}
	}
	return nil
}

// checkRunRow compares a run's row and its bar in the files chart with
// the API's record.
func checkRunRow(t *testing.T, tb *tab, r checkpoint.Run) {
	t.Helper()
	row := `#runs tr[data-run="` + r.ID + `"]`
	for col, want := range map[string]int64{
		"filesAdded": int64(r.FilesAdded), "filesRebuilt": int64(r.FilesRebuilt), "filesRemoved": int64(r.FilesRemoved),
		"liveFiles": int64(r.LiveFiles), "rowsAdded": r.RowsAdded, "rowsRebuilt": r.RowsRebuilt,
		"segmentsBuilt": int64(r.SegmentsGenerated), "segmentsReplaced": int64(r.SegmentsDeleted),
	} {
		cell := tb.text(row + ` td[data-col="` + col + `"]`)
		if got, err := strconv.ParseInt(strings.ReplaceAll(cell, ",", ""), 10, 64); err != nil || got != want {
			t.Fatalf("run %s: the %s cell shows %q, the API has %d", r.ID, col, cell, want)
		}
	}
	if k := tb.text(row + ` td[data-col="kind"]`); k != string(r.Kind) {
		t.Fatalf("run %s: kind cell %q, the API has %q", r.ID, k, r.Kind)
	}
	bar := eval[string](tb, `document.querySelector('figure[data-chart="files"] g[data-run="`+r.ID+`"]')?.dataset.value ?? "none"`)
	if bar != "none" && bar != strconv.Itoa(r.FilesAdded+r.FilesRebuilt) {
		t.Fatalf("run %s: the files-converted bar is %s, the run converted %d added + %d rebuilt", r.ID, bar, r.FilesAdded, r.FilesRebuilt)
	}
	rowsBar := eval[string](tb, `document.querySelector('figure[data-chart="rows"] g[data-run="`+r.ID+`"]')?.dataset.value ?? "none"`)
	if rowsBar != "none" && rowsBar != strconv.FormatInt(r.RowsAdded+r.RowsRebuilt, 10) {
		t.Fatalf("run %s: the rows bar is %s, the run converted %d added + %d rebuilt", r.ID, rowsBar, r.RowsAdded, r.RowsRebuilt)
	}
}

// checkMergeRow: the merge is labelled, says why, and its bar shows the
// rebuilt part apart.
func checkMergeRow(t *testing.T, tb *tab, r checkpoint.Run) {
	t.Helper()
	title := eval[string](tb, `document.querySelector('#runs tr[data-run="`+r.ID+`"] td[data-col="kind"]').title`)
	if !strings.HasPrefix(title, "merge: ") || !strings.Contains(title, "rebuilt, not new") {
		t.Fatalf("the merge's kind cell explains %q", title)
	}
	parts := eval[[]string](tb, `[...document.querySelectorAll('figure[data-chart="rows"] g[data-run="`+r.ID+`"] rect')].map((e) => e.dataset.part)`)
	if len(parts) > 0 && !strings.Contains(strings.Join(parts, " "), "rebuilt") {
		t.Fatalf("the merge's rows bar has parts %v, no rebuilt part", parts)
	}
}

// The Duration chart's y labels fit in the chart (none starts left of it).
func testChartLabelsFit(t *testing.T, tb *tab, base string) {
	openAt(tb, base, testReadToken, "#/tables/"+demoTable)
	tb.waitJS("the duration chart", `document.querySelectorAll('figure[data-chart="duration"] text.axis').length >= 3`)
	for _, c := range []string{"duration", "rows", "files"} {
		minX := eval[float64](tb, `Math.min(...[...document.querySelectorAll('figure[data-chart="`+c+`"] text.axis')].map((e) => e.getBBox().x))`)
		if minX < 0 {
			t.Fatalf("chart %s: a y label starts at x = %.1f, outside the chart", c, minX)
		}
	}
}

// A paused table whose source receives a commit shows "N snapshots
// behind" (the lag check runs whatever the schedule), with the number the
// API measured; resuming syncs it again.
func testLagBehind(t *testing.T, tb *tab, base string) {
	if code := apiPost(t, base+"/api/v1/tables/"+demoTable+"/pause", "{}"); code != 200 {
		t.Fatalf("pause: %d", code)
	}
	defer func() {
		if code := apiPost(t, base+"/api/v1/tables/"+demoTable+"/resume", "{}"); code != 200 {
			t.Errorf("resume: %d", code)
		}
	}()
	openAt(tb, base, testReadToken, "#/")
	cell := `tr[data-table="` + demoTable + `"] td.lag`
	tb.waitJS("the lag behind", `/^\d+ snapshots? behind/.test(document.querySelector('`+cell+`')?.innerText)`)
	var v apiTable
	apiGet(t, base+"/api/v1/tables/"+demoTable, testReadToken, &v)
	text := tb.text(cell)
	n, err := strconv.Atoi(strings.Fields(text)[0])
	if err != nil || v.Lag == nil || n < 1 || n > v.Lag.Snapshots+1 || n < v.Lag.Snapshots-1 {
		t.Fatalf("lag cell %q; the API measures %+v", text, v.Lag)
	}
	if lagging := tb.text(`[data-count="lagging"] .count`); lagging != "1" {
		t.Fatalf("LAGGING card %q with the table behind", lagging)
	}
	tb.screenshot("lag-behind")
}

// viewport makes the tab's viewport w×h (device metrics), so a page is
// taller than the screen.
func (tb *tab) viewport(w, h int64) {
	tb.t.Helper()
	tb.do(fmt.Sprintf("viewport %dx%d", w, h), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride,
			emulation.SetDeviceMetricsOverrideParams{Width: w, Height: h, DeviceScaleFactor: 1})
		return err
	}))
}

// A "Save and validate" the API refuses, clicked at the bottom of a page
// taller than the screen, shows its error where the user looks: the banner
// is scrolled into the viewport and names the refused prop.
func testWizardSaveErrorInView(t *testing.T, tb *tab, base string) {
	tb.viewport(1000, 420)
	openAt(tb, base, testAdminToken, "#/onboard")
	tb.waitJS("the connection form", `document.querySelector("#conn-form")`)
	tb.typeInto("#conn-name", "leaky")
	tb.choose("#conn-type", "rest")
	tb.typeInto(`input[name="prop:uri"]`, "http://floe:pw-0a1b2c3d4e@127.0.0.1:9/catalog")
	eval[bool](tb, `(() => { window.scrollTo(0, document.body.scrollHeight); return true; })()`)
	if eval[bool](tb, `document.querySelector("#wizard-msg").getBoundingClientRect().bottom > 0`) {
		t.Fatal("the page is not scrolled past the banner: the test proves nothing")
	}
	tb.click("#conn-save")
	tb.waitJS("the refusal", `document.querySelector("#wizard-msg.bad")`)
	inView := eval[bool](tb, `(() => { const r = document.querySelector("#wizard-msg").getBoundingClientRect();
		return r.top >= 0 && r.bottom <= innerHeight; })()`)
	if !inView {
		t.Fatalf("the error banner %q is outside the viewport", tb.text("#wizard-msg"))
	}
	if msg := tb.text("#wizard-msg"); !strings.Contains(msg, "uri") {
		t.Fatalf("the refusal %q does not name the prop", msg)
	}
	tb.screenshot("wizard-save-refused")
}
