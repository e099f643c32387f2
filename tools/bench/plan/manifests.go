package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/tools/bench/report"
)

// The block of the one-file syncs on tables written one manifest per
// data file (-manifest-per-file).
const (
	manifestsReportBegin = "<!-- bench-plan-manifests:begin -->"
	manifestsReportEnd   = "<!-- bench-plan-manifests:end -->"
	// The same on the Redis store (-redis).
	manifestsRedisBegin = "<!-- bench-plan-manifests-redis:begin -->"
	manifestsRedisEnd   = "<!-- bench-plan-manifests-redis:end -->"
)

// buildLake builds the table of n data files the options ask for.
func buildLake(ctx context.Context, o options, n int) (*lake.Lake, error) {
	if o.manifestPerFile {
		return lake.BuildManifestPerFile(ctx, o.dir, n, 100)
	}
	return lake.Build(ctx, o.dir, n, o.perBatch, 100)
}

// listedManifests counts the manifests the table's current snapshot lists.
func listedManifests(ctx context.Context, l *lake.Lake) (int, error) {
	tbl, err := l.Load(ctx)
	if err != nil {
		return 0, err
	}
	n, err := manifestCount(ctx, tbl)
	if err != nil {
		return 0, fmt.Errorf("count the manifests listed: %w", err)
	}
	return n, nil
}

// renderManifestsReport is the block of the floe process and warm run
// figures on tables written one manifest per data file, with their
// ratios to the smallest table.
func renderManifestsReport(o options, rs []result) string {
	var b strings.Builder
	blk := manifestsReportBlock(o)
	fmt.Fprintf(&b, "%s\n", blk.Begin)
	fmt.Fprintf(&b, "Last run: %s UTC, %s, %d CPUs shared with other work; median of %d one-file syncs per size after "+
		"one warm-up; tables written one manifest per data file (one ADDED entry each, never merged), history expired "+
		"to the last %d snapshots; %s, local-directory sink.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU(), o.runs, lake.KeepSnapshots,
		newBenchStore("", o.redis, "").name())
	writeProcTable(&b, rs, true)
	fmt.Fprintf(&b, "%s\n", blk.End)
	return b.String()
}

// manifestsReportBlock is the block of the tables written one manifest
// per data file, on the store o asks for.
func manifestsReportBlock(o options) report.Block {
	if o.redis != "" {
		return report.Block{Begin: manifestsRedisBegin, End: manifestsRedisEnd, Section: "## Planning"}
	}
	return report.Block{Begin: manifestsReportBegin, End: manifestsReportEnd, Section: "## Planning"}
}
