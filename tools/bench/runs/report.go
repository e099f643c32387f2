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

const (
	overwriteBegin = "<!-- bench-overwrite:begin -->"
	overwriteEnd   = "<!-- bench-overwrite:end -->"
)

// overwriteIntro opens the "Streamed replacements" section when the report
// has none.
const overwriteIntro = "`make bench-overwrite` (`tools/bench/runs -only overwrite`) syncs an iceberg-go table " +
	"(sqlite SQL catalog), overwrites every data file by as many new ones in one snapshot, and syncs again while " +
	"sampling the work directory every 2 ms: the replacing run opens one replacement, uploads each unit into it as " +
	"it is built and ends it after the last (docs/ARCHITECTURE.md, I9). Before floe streamed replacements, the run " +
	"held every unit's tarball until one swap at the end: the whole column \"all tarballs\"." +
	" The last column counts everything the two builders hold while converting: the unit's uncompressed segment directory and the Parquet reader's scratch beside the tarball, as for a backfill (\"Large tables\"). Shared across replicas, the same run is built by all of them: `go test -tags integration -run 'TestStream_ReplacementSurvivesKillAndFreeze$' -v ./internal/e2e/` logs the units each of three `floe serve` replicas built of a 24-unit overwrite (12, 9 and 11 in one run, with the lease holder SIGKILLed mid-stream)."

func renderOverwrite(o options, ow overwrite) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nLast run: %s UTC, %s, %d CPUs shared with other work.\n\n", overwriteBegin,
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU())
	fmt.Fprintf(&b, "**Overwrite** (one process, `buildParallelism: %d`): %d files of %d rows replaced by %d; %d segments "+
		"built, %d retired, in %s.\n\n", overwriteParallelism, ow.files, o.rows, ow.files, ow.built, ow.deleted,
		ow.wall.Round(time.Millisecond))
	b.WriteString("| all tarballs | largest tarball | peak tarballs in the work directory | peak of the work directory (all files) |\n|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %.1f MiB | %.2f MiB | **%d tarballs, %.2f MiB = %.2f× the largest** | %.2f MiB = %.2f× the largest tarball |\n",
		float64(ow.segmentBytes)/mib, float64(ow.maxSegmentBytes)/mib, ow.peakTars, float64(ow.peakTarBytes)/mib,
		float64(ow.peakTarBytes)/float64(max(ow.maxSegmentBytes, 1)), float64(ow.peakWorkBytes)/mib,
		float64(ow.peakWorkBytes)/float64(max(ow.maxSegmentBytes, 1)))
	fmt.Fprintf(&b, "\nThe work directory's tarballs peaked at %.1f%% of the tarballs the run produced.\n%s\n",
		100*float64(ow.peakTarBytes)/float64(max(ow.segmentBytes, 1)), overwriteEnd)
	return b.String()
}

// overwriteBlock is the overwrite measurement's block of the report.
func overwriteBlock() report.Block {
	return report.Block{Begin: overwriteBegin, End: overwriteEnd, Section: "## Streamed replacements\n\n" + overwriteIntro}
}
