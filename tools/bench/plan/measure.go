package main

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher/plan"
)

// cost is one measured plan.
type cost struct {
	wall, cpu time.Duration
	alloc     uint64
}

// stat is the median of several costs.
type stat struct{ wall, cpu, alloc float64 } // ms, ms, KiB

func median(cs []cost) stat {
	get := func(f func(cost) float64) float64 {
		v := make([]float64, len(cs))
		for i, c := range cs {
			v[i] = f(c)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return stat{
		wall:  get(func(c cost) float64 { return float64(c.wall.Microseconds()) / 1e3 }),
		cpu:   get(func(c cost) float64 { return float64(c.cpu.Microseconds()) / 1e3 }),
		alloc: get(func(c cost) float64 { return float64(c.alloc) / 1024 }),
	}
}

// result holds the medians of one table size.
type result struct {
	files, manifests           int
	foldWarm, foldCold, full   stat
	fullCold, icebergPlanFiles stat
	runSync, runNoop           stat
	runCompact                 stat
	// procFiles is the table's size when the processes were measured.
	procFiles  int
	cold, warm procStat
	// compact is the remap after the table's compaction (-compact).
	compact *compactStat
}

// How each contender plans the one-file change.
const (
	cFoldWarm  = "fold, warm cache"
	cFoldCold  = "fold, cold cache"
	cFullWarm  = "full-state diff, warm cache"
	cFullCold  = "full-state diff, cold cache"
	cPlanFiles = "iceberg-go PlanFiles"
)

// measureSyncs adds one file at a time and measures planning that sync
// each way; the checkpoint then moves as a run would.
func measureSyncs(ctx context.Context, l *lake.Lake, runs int) (result, error) {
	warm, warmFull := plan.New(plan.Options{}), plan.New(plan.Options{})
	tbl, err := l.Load(ctx)
	if err != nil {
		return result{}, err
	}
	first, err := warm.Plan(ctx, "events", tbl, checkpoint.Checkpoint{})
	if err != nil {
		return result{}, err
	}
	cp := commit(tbl, first)
	costs := map[string][]cost{}
	for i := 0; i <= runs; i++ { // the first sync warms up and is not counted
		if err := l.AddFiles(ctx, 1); err != nil {
			return result{}, err
		}
		if tbl, err = l.Load(ctx); err != nil {
			return result{}, err
		}
		got, c, err := measurePlan(func() (*plan.Plan, error) { return warm.Plan(ctx, "events", tbl, cp) })
		if err != nil {
			return result{}, err
		}
		if !got.Incremental || len(got.Build) != 1 || got.Replacing {
			return result{}, fmt.Errorf("%d files: the one-file sync did not fold to one new file (fallback %q, %d units)",
				l.Files, got.Fallback, len(got.Build))
		}
		others, err := measureOthers(ctx, tbl, cp, warmFull)
		if err != nil {
			return result{}, err
		}
		if i > 0 {
			costs[cFoldWarm] = append(costs[cFoldWarm], c)
			for k, v := range others {
				costs[k] = append(costs[k], v)
			}
		}
		cp = commit(tbl, got)
	}
	ms, _ := manifestCount(ctx, tbl)
	return result{files: l.Files - runs - 1, manifests: ms, foldWarm: median(costs[cFoldWarm]),
		foldCold: median(costs[cFoldCold]), full: median(costs[cFullWarm]), fullCold: median(costs[cFullCold]),
		icebergPlanFiles: median(costs[cPlanFiles])}, nil
}

// measureOthers plans the same change with a cold Planner, with the
// full-state diff (forced by a checkpoint of another table UUID) on a
// Planner that planned every sync before (warm) and on a new one (cold),
// and with iceberg-go's PlanFiles.
func measureOthers(ctx context.Context, tbl *table.Table, cp checkpoint.Checkpoint, warm *plan.Planner) (map[string]cost, error) {
	out := map[string]cost{}
	forced := cp
	forced.TableUUID = "forced-full-state-diff"
	for name, f := range map[string]func() (*plan.Plan, error){
		cFoldCold: func() (*plan.Plan, error) { return plan.New(plan.Options{}).Plan(ctx, "events", tbl, cp) },
		cFullWarm: func() (*plan.Plan, error) { return warm.Plan(ctx, "events", tbl, forced) },
		cFullCold: func() (*plan.Plan, error) { return plan.New(plan.Options{}).Plan(ctx, "events", tbl, forced) },
	} {
		got, c, err := measurePlan(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(got.Build) != 1 {
			return nil, fmt.Errorf("%s: %d units, want 1", name, len(got.Build))
		}
		out[name] = c
	}
	c, err := measure(func() error {
		_, err := tbl.Scan().PlanFiles(ctx)
		return err
	})
	out[cPlanFiles] = c
	return out, err
}

// measurePlan measures one planning call.
func measurePlan(f func() (*plan.Plan, error)) (*plan.Plan, cost, error) {
	var p *plan.Plan
	c, err := measure(func() error {
		var err error
		p, err = f()
		return err
	})
	return p, c, err
}

// measure runs f once after a collection and returns its wall time, the
// process's CPU time and the bytes it allocated.
func measure(f func() error) (cost, error) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cli.CPUTime()
	start := time.Now()
	err := f()
	wall := time.Since(start)
	cpu := cli.CPUTime() - cpu0
	runtime.ReadMemStats(&m1)
	return cost{wall: wall, cpu: cpu, alloc: m1.TotalAlloc - m0.TotalAlloc}, err
}

// commit is the checkpoint a run commits after the plan.
func commit(tbl *table.Table, p *plan.Plan) checkpoint.Checkpoint {
	files := maps.Clone(p.Keep)
	for _, u := range p.Build {
		maps.Copy(files, u.FileStates([]string{u.SegmentName(0)}, 100))
	}
	return checkpoint.Checkpoint{Table: "events", SnapshotID: p.SnapshotID, SequenceNumber: p.SequenceNumber,
		MetadataLocation: tbl.MetadataLocation(), TableUUID: tbl.Metadata().TableUUID().String(), Files: files}
}

func manifestCount(ctx context.Context, tbl *table.Table) (int, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return 0, err
	}
	ms, err := tbl.CurrentSnapshot().Manifests(fs)
	return len(ms), err
}
