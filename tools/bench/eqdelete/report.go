package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/floehq/floe/tools/bench/report"
)

// markers are the report block's first and last lines.
func markers(scattered bool) (begin, end string) {
	if scattered {
		return "<!-- bench-eqdelete-scattered:begin -->", "<!-- bench-eqdelete-scattered:end -->"
	}
	return "<!-- bench-eqdelete:begin -->", "<!-- bench-eqdelete:end -->"
}

func renderReport(o options, rs []result) string {
	begin, end := markers(o.scattered)
	layout := "id ranges disjoint per file"
	if o.scattered {
		layout = "ids scattered (every file's ids span the range of longs, as random keys of unsorted files do)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", begin)
	fmt.Fprintf(&b, "Last run: %s UTC, %s, %d CPUs shared with other work. Table: %d files × %d rows, %s, "+
		"`id` the identifier field; each commit appends one file of %d rows and deletes %d keys by "+
		"equality; a whole run (plan, build with the real builder, push to the local-directory sink, commit) follows "+
		"each. Means of %d commits per contender after one warm-up; contenders run in this order on one table.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU(), o.files, o.rows, layout, o.rows,
		o.deletes, o.commits)
	b.WriteString("| equality deletes apply to | CPU s / commit | wall s | rows written | rows of the hit files + new file | " +
		"files hit | segments replaced (max) | segments built |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.0f | %.0f | %.1f | %.1f (%d) | %.1f |\n", r.name, r.cpu, r.wall,
			r.rowsWritten, r.rowsHeld, r.filesHit, r.replaced, r.maxReplaced, r.built)
	}
	switch {
	case o.scattered && len(rs) == 2 && rs[1].cpu > 0:
		fmt.Fprintf(&b, "\nCPU per commit, scattered keys: the key index **%.1f×** less than key bounds alone; rows "+
			"written %.0f against %.0f.\n", rs[0].cpu/rs[1].cpu, rs[1].rowsWritten, rs[0].rowsWritten)
	case len(rs) == 3 && rs[1].cpu > 0 && rs[2].cpu > 0:
		fmt.Fprintf(&b, "\nCPU per commit, random keys: key bounds **%.1f×** less than every older file "+
			"(target ≥10×); recent keys **%.1f×** less.\n", rs[0].cpu/rs[1].cpu, rs[0].cpu/rs[2].cpu)
	}
	fmt.Fprintf(&b, "%s\n", end)
	return b.String()
}

// reportBlock is the benchmark's block of the report.
func reportBlock(scattered bool) report.Block {
	begin, end := markers(scattered)
	if scattered {
		return report.Block{Begin: begin, End: end, Section: "## Equality deletes on scattered keys (key index)\n\n" +
			"Where every file's key range spans the deleted keys (random keys or UUIDs in unsorted files), bounds " +
			"rule nothing out and each file's key index decides (`watcher/plan/doc.go`, P12). " +
			"`scripts/bench-eqdelete.sh -scattered` measures it against bounds alone (a planner option kept for " +
			"this comparison)."}
	}
	return report.Block{Begin: begin, End: end, Section: "## Equality deletes (CDC upserts)\n\n" +
		"An equality delete rebuilds only the segments whose files' key bounds hold one of its keys " +
		"(`watcher/plan/doc.go`, P2). `make bench-eqdelete` (`tools/bench/eqdelete`) measures a CDC writer's " +
		"commits against the rule floe had before, under which every equality delete rebuilt every older file of " +
		"its partition (kept as a planner option for this comparison)."}
}

const (
	growthBegin = "<!-- bench-eqdelete-growth:begin -->"
	growthEnd   = "<!-- bench-eqdelete-growth:end -->"
)

// renderGrowthReport is the block of one contender measured as the table
// grows, with the ratio of each size's CPU per commit to the first's.
func renderGrowthReport(o options, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", growthBegin)
	fmt.Fprintf(&b, "Last run: %s UTC, %s, %d CPUs shared with other work. One table per size, "+
		"commits alternating between them (one commit and its run on each in turn); files of %d rows, id ranges disjoint per file, `id` the identifier field; each commit appends one file of %d "+
		"rows and deletes %d random existing keys by equality; a whole run (plan, build with the real builder, push "+
		"to %s, commit) follows each. Means of %d commits per size after one warm-up round.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU(), o.rows, o.rows, o.deletes,
		sinkText(o.sink), o.commits)
	b.WriteString("| data files | CPU s / commit | wall s | rows written | rows of the hit files + new file | files hit | " +
		"segments replaced (max) | segments built |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %d | %.3f | %.2f | %.0f | %.0f | %.1f | %.1f (%d) | %.1f |\n", r.files, r.cpu, r.wall,
			r.rowsWritten, r.rowsHeld, r.filesHit, r.replaced, r.maxReplaced, r.built)
	}
	if len(rs) > 1 && rs[0].cpu > 0 {
		b.WriteString("\nCPU per commit against the smallest table (target ≤1.5× from 1,000 to 10,000 files):")
		for _, r := range rs[1:] {
			fmt.Fprintf(&b, " %d files **%.2f×**.", r.files, r.cpu/rs[0].cpu)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s\n", growthEnd)
	return b.String()
}

// growthReportBlock is the growth measurement's block of the report.
func growthReportBlock() report.Block {
	return report.Block{Begin: growthBegin, End: growthEnd, Section: "## Equality deletes as the table grows\n\n" +
		"CPU per CDC commit (key bounds and key index, random keys) at growing table sizes: " +
		"`scripts/bench-eqdelete.sh -grow 1000,10000 -rows 200 -sink memory`."}
}

// sinkText names the Pinot stand-in in the report.
func sinkText(sink string) string {
	if sink == "memory" {
		return "an in-memory Pinot stand-in"
	}
	return "the local-directory sink"
}
