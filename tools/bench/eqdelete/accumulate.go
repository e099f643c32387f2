package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/floehq/floe/internal/cpuprofile"
	"github.com/floehq/floe/tools/bench/report"
)

// accumulateContenders are the builders compared as equality delete
// files accumulate: iceberg-go's scan applying every delete file of each
// data file (reading it again for every data file), and floe applying
// them from the replica's delete cache (watcher/doc.go, B2).
var accumulateContenders = []contender{
	{name: "iceberg-go's scan reads the deletes per data file (floe before)", scanDeletes: true},
	{name: "delete cache (each delete file read once)"},
}

// runAccumulate measures CPU per commit step by step over o.accumulate
// commits, each appending a file and deleting random existing keys by
// equality, so the equality delete files that apply to each rebuilt data
// file accumulate. Each contender has its own table, built alike (same
// keys, same seeds); their commits alternate, so the machine's other
// load falls on both alike; garbage is collected before each measured
// run, so that one contender's does not land on the other's. With -cpuprofile the runs are labelled
// builder=0 (the scan per data file) or 1 (the delete cache) and
// commit=<n>.
func runAccumulate(ctx context.Context, o options, stdout, stderr io.Writer) error {
	var ss []*session
	for i, ct := range accumulateContenders {
		fmt.Fprintf(stderr, "eqbench: building a table of %d files × %d rows (%s)\n", o.files, o.rows, ct.name)
		c, err := newCDCTable(ctx, filepath.Join(o.dir, fmt.Sprint("lake", i)), o.files, o.rows, o.perCommit, false)
		if err != nil {
			return err
		}
		defer c.Close()
		keys := &keyPicker{rng: rand.New(rand.NewPCG(1, 2)), deleted: map[int64]bool{}, rows: int64(o.rows)}
		s, err := newSession(ctx, o, c, keys, ct, filepath.Join(o.dir, fmt.Sprint("acc", i)))
		if err != nil {
			return fmt.Errorf("%s: %w", ct.name, err)
		}
		s.settle = true
		ss = append(ss, s)
	}
	stop, err := cpuprofile.Start(o.profile)
	if err != nil {
		return err
	}
	defer stop()
	steps := make([][]stepCost, len(ss))
	for i := 0; i < o.accumulate; i++ {
		for j, s := range ss {
			var c stepCost
			var err error
			pprof.Do(ctx, pprof.Labels("builder", fmt.Sprint(j), "commit", fmt.Sprint(i+1)), func(ctx context.Context) {
				c, err = s.stepCost(ctx, false)
			})
			if err != nil {
				return fmt.Errorf("%s: step %d: %w", s.r.name, i+1, err)
			}
			steps[j] = append(steps[j], c)
		}
		fmt.Fprintf(stderr, "eqbench: step %d: %.2f s, %.2f s CPU\n", i+1, steps[0][i].cpu.Seconds(), steps[1][i].cpu.Seconds())
	}
	return report.Publish(stdout, o.report, accumulateBlock(), renderAccumulate(o, steps))
}

const (
	accumulateBegin = "<!-- bench-eqdelete-accumulate:begin -->"
	accumulateEnd   = "<!-- bench-eqdelete-accumulate:end -->"
)

// renderAccumulate is the step-by-step table of both contenders, with the
// ratios of the last step to the first and of the contenders.
func renderAccumulate(o options, steps [][]stepCost) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", accumulateBegin)
	fmt.Fprintf(&b, "Last run: %s UTC, %s, %d CPUs shared with other work. One table per builder, built alike: %d files × "+
		"%d rows, id ranges disjoint per file, `id` the identifier field; each commit appends one file of %d rows and "+
		"deletes %d random existing keys by equality (one more equality delete file); a whole run (plan, build with the "+
		"real builder, push to %s, commit) follows each; the builders' commits alternate. Delete files read by the scan "+
		"per data file: the delete files applying to each rebuilt data file, summed (the delete cache's reads plus its "+
		"hits).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU(), o.files, o.rows, o.rows,
		o.deletes, sinkText(o.sink))
	b.WriteString("| commit | CPU s, scan per data file | CPU s, delete cache | delete files read: scan per data file | " +
		"delete cache | segments built | rows written |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := range steps[0] {
		before, after := steps[0][i], steps[1][i]
		fmt.Fprintf(&b, "| %d | %.2f | %.2f | %d | %d | %d | %d |\n", i+1, before.cpu.Seconds(), after.cpu.Seconds(),
			after.uses, after.reads, after.run.SegmentsGenerated, after.run.Rows)
	}
	n := len(steps[0])
	w := max(1, n/3) // commits averaged at each end: single commits are noisy on a shared machine
	mean := func(cs []stepCost) float64 {
		var sum float64
		for _, c := range cs {
			sum += c.cpu.Seconds()
		}
		return sum / float64(len(cs))
	}
	first := func(j int) float64 { return mean(steps[j][:w]) }
	last := func(j int) float64 { return mean(steps[j][n-w:]) }
	fmt.Fprintf(&b, "\nCPU of the last %d commits against the first %d (means): scan per data file **%.2f×**, delete cache "+
		"**%.2f×**; over the last %d commits the delete cache takes **%.2f×** the CPU of the scan per data file "+
		"(commit %d against commit 1, single commits: %.2f× and %.2f×).\n", w, w, last(0)/first(0), last(1)/first(1), w,
		last(1)/last(0), n, steps[0][n-1].cpu.Seconds()/steps[0][0].cpu.Seconds(), steps[1][n-1].cpu.Seconds()/steps[1][0].cpu.Seconds())
	fmt.Fprintf(&b, "%s\n", accumulateEnd)
	return b.String()
}

// accumulateBlock is the accumulation measurement's block of the report.
func accumulateBlock() report.Block {
	return report.Block{Begin: accumulateBegin, End: accumulateEnd, Section: "## Equality deletes as they accumulate\n\n" +
		"CPU per CDC commit as equality delete files accumulate on the rebuilt data files: " +
		"`scripts/bench-eqdelete.sh -accumulate 10 -files 200 -rows 2000 -deletes 5000 -sink memory` (part of `make " +
		"bench-eqdelete`) compares the builder's delete cache (`watcher/doc.go`, B2) with iceberg-go's scan reading " +
		"every delete file again for each data file it applies to (how floe read them before; a builder option kept " +
		"for this comparison)."}
}
