package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/floehq/floe/tools/bench/report"
)

const (
	reportBegin = "<!-- bench-tables:begin -->"
	reportEnd   = "<!-- bench-tables:end -->"
)

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }

func renderReport(o options, r results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nLast run: %s UTC, %s, %d CPUs shared with other work. %d tables on one redis-server, %d runs each.\n\n",
		reportBegin, time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU(), o.tables, o.runsPerTable)
	b.WriteString("| request | requests | median ms | p90 ms | answer bytes |\n|---|---:|---:|---:|---:|\n")
	rows := []struct {
		label string
		t     timing
	}{
		{"`GET /api/v1/tables?pageSize=100` (pages 1–10 in turn)", r.page},
		{"the same, right after a table changed (every table record read again)", r.pageChanged},
		{"`GET /api/v1/tables?pageSize=100&state=IDLE,FAILED&sort=-lag` (every table's overview read)", r.filtered},
		{"`GET /api/v1/summary`", r.summary},
		{"`GET /api/v1/tables?pageSize=1000`: every table in one answer", r.all},
		{"before: every table, per-table store reads (how the listing read before the overview pipeline)", r.old},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %d |\n", row.label, len(row.t.samples), ms(row.t.quantile(0.5)),
			ms(row.t.quantile(0.9)), row.t.bytes)
	}
	fmt.Fprintf(&b, "\nA page of 100 answers in **%s ms** (median; target ≤ 20 ms). Every table in one answer takes %s ms "+
		"batched against %s ms with per-table reads: **%.1f×** faster for the same tables (and the per-table path's one "+
		"answer took %.0f× as long as a page of 100 does now). `GET /metrics` at this scale is measured by "+
		"`make bench-metrics` (its own section).\n%s\n",
		ms(r.page.quantile(0.5)), ms(r.all.quantile(0.5)), ms(r.old.quantile(0.5)),
		float64(r.old.quantile(0.5))/float64(max(r.all.quantile(0.5), 1)),
		float64(r.old.quantile(0.5))/float64(max(r.page.quantile(0.5), 1)), reportEnd)
	return b.String()
}

// reportBlock is the benchmark's block of the report.
func reportBlock() report.Block {
	return report.Block{Begin: reportBegin, End: reportEnd, Section: "## Table overview API\n\n" + strings.TrimRight(sectionIntro, "\n")}
}

const sectionIntro = "`make bench-tables` (scripts/bench-tables.sh → `tools/bench/tables`) starts a `redis-server`, registers the " +
	"tables through the store (each with a checkpoint of ten files, its run history, a failed, running or completed newest " +
	"run and an observation of its source), and serves the API over loopback HTTP from a watcher that knows every table. " +
	"A listing reads the table records from a cache that stays valid while the store's table revision does not move (one " +
	"`GET` of the counter), and the checkpoint summaries, newest runs and observations in one pipeline: of the page's " +
	"tables, or of every matching table when a state filter or a sort on an overview field needs them. The last row " +
	"replays the reads the listing made before: every table record, then per table its status, checkpoint summary and " +
	"newest run, one round trip after another.\n\n"
