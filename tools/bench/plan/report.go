package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/floehq/floe/tools/bench/report"
)

const (
	reportBegin     = "<!-- bench-plan:begin -->"
	reportEnd       = "<!-- bench-plan:end -->"
	procReportBegin = "<!-- bench-plan-process:begin -->"
	procReportEnd   = "<!-- bench-plan-process:end -->"
)

// renderProcessReport is the block of the floe process and warm run
// figures, with their ratios to the smallest table.
func renderProcessReport(o options, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", procReportBegin)
	fmt.Fprintf(&b, "Last run: %s UTC, %s, %d CPUs shared with other work; median of %d one-file syncs per size after "+
		"one warm-up; tables built %d files per commit, manifests never merged; Bolt store, local-directory sink.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU(), o.runs, o.perBatch)
	writeProcTable(&b, rs, false)
	fmt.Fprintf(&b, "%s\n", procReportEnd)
	return b.String()
}

// writeProcTable writes the one-file syncs' table (with the manifests
// each run listed when manifests is set) and their ratios to the
// smallest table.
func writeProcTable(b *strings.Builder, rs []result, manifests bool) {
	head, rule := "| data files |", "|---:|"
	if manifests {
		head, rule = head+" manifests listed |", rule+"---:|"
	}
	b.WriteString(head + " cold `floe sync`: CPU ms | peak RSS MiB | warm run: CPU ms | live heap MiB |\n" +
		rule + "---:|---:|---:|---:|\n")
	for _, r := range rs {
		fmt.Fprintf(b, "| %d |", r.procFiles)
		if manifests {
			fmt.Fprintf(b, " %d |", r.manifests)
		}
		fmt.Fprintf(b, " %.0f | %.1f | %.1f | %.1f |\n", r.cold.cpu, r.cold.mem/1024, r.warm.cpu, r.warm.mem/1024)
	}
	if len(rs) > 1 {
		small := rs[0]
		b.WriteString("\nRatios to the smallest table (target ≤1.5× at 100,000 files):")
		for _, r := range rs[1:] {
			fmt.Fprintf(b, " %d files: cold CPU **%.2f×**, RSS %.2f×; warm CPU **%.2f×**, heap %.2f×.", r.procFiles,
				r.cold.cpu/small.cold.cpu, r.cold.mem/small.cold.mem, r.warm.cpu/small.warm.cpu, r.warm.mem/small.warm.mem)
		}
		b.WriteString("\n")
	}
}

// procReportBlock is the process figures' block of the report.
func procReportBlock() report.Block {
	return report.Block{Begin: procReportBegin, End: procReportEnd, Section: "## Planning"}
}

func renderReport(o options, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", reportBegin)
	fmt.Fprintf(&b, "Last run: %s UTC, %s, %d CPUs shared with other work; median of %d one-file syncs per size; "+
		"tables built %d files per commit.\n\n", time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(),
		runtime.NumCPU(), o.runs, o.perBatch)
	b.WriteString("| data files | manifests | contender | wall ms | CPU ms | KiB allocated |\n|---:|---:|---|---:|---:|---:|\n")
	for _, r := range rs {
		for _, c := range []struct {
			name string
			s    stat
		}{{cFoldWarm, r.foldWarm}, {cFoldCold, r.foldCold}, {cFullWarm, r.full}, {cFullCold, r.fullCold},
			{cPlanFiles, r.icebergPlanFiles}, {cRunSync, r.runSync}, {cRunNoop, r.runNoop}, {cRunCompact, r.runCompact}} {
			if c.name == cRunCompact && c.s.cpu == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %.2f | %.2f | %.0f |\n", r.files, r.manifests, c.name, c.s.wall, c.s.cpu, c.s.alloc)
		}
	}
	if len(rs) > 1 {
		small, large := rs[0], rs[len(rs)-1]
		fmt.Fprintf(&b, "\nRatios %d / %d files (target ≤1.5×): fold, warm cache **%.2f×** wall, %.2f× CPU; "+
			"fold, cold cache %.2f× wall; iceberg-go PlanFiles %.1f× wall.\n", large.files, small.files,
			large.foldWarm.wall/small.foldWarm.wall, large.foldWarm.cpu/small.foldWarm.cpu,
			large.foldCold.wall/small.foldCold.wall, large.icebergPlanFiles.wall/small.icebergPlanFiles.wall)
		fmt.Fprintf(&b, "Whole run (load, plan, build the segment and its tarball, push to an in-memory Pinot stand-in, commit), %d / %d files (target "+
			"≤1.5×): one-file sync **%.2f×** CPU, %.2f× wall; a tick with no new snapshot %.2f× CPU (it reads the "+
			"table's metadata file and returns before planning).\n", large.files, small.files,
			large.runSync.cpu/small.runSync.cpu, large.runSync.wall/small.runSync.wall, large.runNoop.cpu/small.runNoop.cpu)
	}
	for _, r := range rs {
		if r.runCompact.cpu == 0 { // measured by the processes instead
			continue
		}
		fmt.Fprintf(&b, "Compaction of the %d-file table into a hundredth of its files, remapped (watcher/plan P11: 0 "+
			"segments built, 0 pushed; measured once): run CPU **%.2f×** a one-file sync on the same table (target "+
			"≤1.5×).\n", r.files, r.runCompact.cpu/r.runSync.cpu)
	}
	fmt.Fprintf(&b, "%s\n", reportEnd)
	return b.String()
}

// reportBlock is the benchmark's block of the report.
func reportBlock() report.Block {
	return report.Block{Begin: reportBegin, End: reportEnd, Section: "## Planning"}
}

const (
	compactReportBegin = "<!-- bench-plan-compact:begin -->"
	compactReportEnd   = "<!-- bench-plan-compact:end -->"
)

// renderCompactReport is the block of the remaps after the compactions,
// against the one-file syncs of the same table in the same run.
func renderCompactReport(o options, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", compactReportBegin)
	fmt.Fprintf(&b, "Last run: %s UTC, %s, %d CPUs shared with other work; each table compacted once after its "+
		"one-file syncs (medians of %d after one warm-up, the \"1-file sync\" column); the remaps are medians of %d "+
		"too: cold, `floe sync` processes, each on a copy of the store taken before the remap; warm, the long-lived "+
		"watcher's run, then new watchers on copies of the store, each warmed by the table's last one-file sync "+
		"(memory: the long-lived watcher's live heap); Bolt store, local-directory sink; bytes pushed are the bytes "+
		"of the files the sink's directory gained or rewrote.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.Version(), runtime.NumCPU(), o.runs, o.runs)
	b.WriteString("| data files | run | kind | segments built / replaced | files remapped | bytes pushed | " +
		"CPU ms | 1-file sync CPU ms | CPU ratio | memory MiB | 1-file sync MiB | memory ratio |\n" +
		"|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		c := r.compact
		if c == nil {
			continue
		}
		for _, x := range []struct {
			name string
			run  compactRun
			sync procStat
		}{{"cold `floe sync` (peak RSS)", c.cold, r.cold}, {"warm run in serve (live heap)", c.warm, r.warm}} {
			fmt.Fprintf(&b, "| %d → %d | %s | %s | %d / %d | %d | %d | %.0f | %.0f | **%.2f×** | %.1f | %.1f | %.2f× |\n",
				c.from, c.into, x.name, x.run.kind, x.run.built, x.run.replaced, x.run.remapped, x.run.sinkBytes,
				x.run.cost.cpu, x.sync.cpu, x.run.cost.cpu/x.sync.cpu, x.run.cost.mem/1024, x.sync.mem/1024,
				x.run.cost.mem/x.sync.mem)
		}
	}
	b.WriteString("\nTarget: 0 segments built, 0 bytes pushed, CPU ≤1.5× a one-file sync on the same table " +
		"(10,000 files into 100).\n")
	fmt.Fprintf(&b, "%s\n", compactReportEnd)
	return b.String()
}

// compactReportBlock is the compaction figures' block of the report.
func compactReportBlock() report.Block {
	return report.Block{Begin: compactReportBegin, End: compactReportEnd, Section: "## Planning"}
}
