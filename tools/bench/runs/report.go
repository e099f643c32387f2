package main

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/floehq/floe/tools/bench/report"
)

const (
	reportBegin = "<!-- bench-runs:begin -->"
	reportEnd   = "<!-- bench-runs:end -->"
)

const mib = 1 << 20

// reportIntro opens the "Large tables" section when the report has none.
const reportIntro = "`make bench-runs` (scripts/bench-runs.sh → `tools/bench/runs`) backfills an iceberg-go table " +
	"(sqlite SQL catalog) with one process while sampling its work directory, then backfills another table with one " +
	"and with three `floe serve` replicas on one real redis-server sharing the units of the run."

func renderReport(o options, bf backfill, rs []scaling) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nLast run: %s UTC, %s, %d CPUs shared with other work.\n\n", reportBegin,
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU())
	fmt.Fprintf(&b, "**Backfill** (one process, `buildParallelism: 2`, `batchFiles: %d`): %d files, %d rows, %d segments "+
		"(%.1f MiB of tarballs, the largest %.1f MiB) in %s with %d checkpoint commits. The work directory peaked at "+
		"**%.1f MiB**, %.1f%% of the tarballs the run produced and %.0f%% of one batch's (it holds only the units being "+
		"built: at most `buildParallelism` segments and their tarballs, whatever the table's or the batch's size).\n\n",
		o.batchFiles, bf.files, bf.rows, bf.segments, float64(bf.segmentBytes)/mib, float64(bf.maxSegmentBytes)/mib,
		bf.wall.Round(time.Millisecond), bf.commits, float64(bf.peakWorkBytes)/mib,
		100*float64(bf.peakWorkBytes)/float64(max(bf.segmentBytes, 1)),
		100*float64(bf.peakWorkBytes)/max(float64(bf.segmentBytes)*float64(o.batchFiles)/float64(max(bf.files, 1)), 1))
	b.WriteString("**Replicas** (`floe serve` on one Redis, `buildParallelism: " + fmt.Sprint(o.parallelism) +
		"` each, a local segment directory as the sink):\n\n| replicas | wall | units built per replica |\n|---:|---:|---|\n")
	for _, s := range rs {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", s.replicas, s.wall.Round(time.Millisecond), unitsByReplica(s.builders))
	}
	if len(rs) == 2 {
		fmt.Fprintf(&b, "\nThree replicas took **%.2f×** the wall time of one on %d CPUs.\n", rs[1].wall.Seconds()/rs[0].wall.Seconds(),
			runtime.NumCPU())
	}
	fmt.Fprintf(&b, "%s\n", reportEnd)
	return b.String()
}

// unitsByReplica lists units built per replica, by replica name.
func unitsByReplica(built map[string]int) string {
	names := slices.Sorted(maps.Keys(built))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s: %d", n, built[n])
	}
	return strings.Join(parts, ", ")
}

// reportBlock is the benchmark's block of the report.
func reportBlock() report.Block {
	return report.Block{Begin: reportBegin, End: reportEnd, Section: "## Large tables\n\n" + reportIntro}
}
