package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/floehq/floe/tools/bench/report"
)

// cmdDeletes measures a sync of the benchmark file with a deletion vector
// on it: floe applying the DV to its own Parquet source against iceberg-go's
// scan applying it (IcebergBuilder.ScanDeletes), whole processes in turn.
func cmdDeletes(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := runOptions{}
	fs := flag.NewFlagSet("deletes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dir, "dir", ".cache/bench", "work directory (the Parquet file is generated here once)")
	fs.StringVar(&o.report, "report", "docs/benchmarks.md", "Markdown file whose deletes block is rewritten (empty: print only)")
	fs.IntVar(&o.rows, "rows", 2_000_000, "rows in the benchmark file")
	fs.IntVar(&o.runs, "runs", 5, "runs per contender, in turn (medians count)")
	below := fs.Int64("delete-below", 200_000, "the deletion vector deletes the rows whose id is below this")
	if err := fs.Parse(args); err != nil {
		return err
	}
	file, err := ensureBenchFile(o, stdout)
	if err != nil {
		return err
	}
	lake := filepath.Join(o.dir, fmt.Sprintf("lake-dv-%d-%d", o.rows, *below))
	if err := ensureDVLake(ctx, lake, file, *below); err != nil {
		return fmt.Errorf("deletes: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("deletes: %w", err)
	}
	contenders := []struct{ name, flag string }{
		{"floe applies the DV (floe's Parquet source)", ""},
		{"iceberg-go's scan applies the DV", "-scan-deletes"},
	}
	got := make([][]measurement, len(contenders))
	for run := 0; run < o.runs+1; run++ { // the first round warms the page cache, not counted
		for i, c := range contenders {
			out := filepath.Join(o.dir, "out-deletes")
			os.RemoveAll(out)
			args := []string{"sync", "-lake", lake, "-o", out, "-reader", "watcher"}
			if c.flag != "" {
				args = append(args, c.flag)
			}
			m, err := measure(c.name, exec.CommandContext(ctx, self, args...))
			os.RemoveAll(out)
			if err != nil {
				return fmt.Errorf("deletes: %w", err)
			}
			if m.rows, err = strconv.ParseInt(strings.TrimSpace(string(m.stdout)), 10, 64); err != nil {
				return fmt.Errorf("deletes: %s printed %q, not its row count", c.name, m.stdout)
			}
			fmt.Fprintf(stdout, "%-45s run %d: %6.2fs CPU %6.0f MiB %d rows\n", c.name, run, m.cpu.Seconds(),
				float64(m.rssKiB)/1024, m.rows)
			if run > 0 {
				got[i] = append(got[i], m)
			}
		}
	}
	if got[0][0].rows != got[1][0].rows {
		return fmt.Errorf("deletes: the contenders read %d and %d rows", got[0][0].rows, got[1][0].rows)
	}
	return report.Publish(stdout, o.report, deletesBlock(), renderDeletes(o, *below, contenders[0].name, contenders[1].name, got))
}

// ensureDVLake makes a format 3 table (SQL catalog under dir) whose one
// data file is the benchmark file, added in place, and commits a delete
// of the rows whose id is below below: iceberg-go writes it as a
// deletion vector.
func ensureDVLake(ctx context.Context, dir, parquetFile string, below int64) error {
	props := iceberg.Properties{"format-version": "3", table.WriteDeleteModeKey: table.WriteModeMergeOnRead}
	return ensureLakeWith(ctx, dir, parquetFile, props, func(tbl *table.Table) error {
		if _, err := tbl.Delete(ctx, iceberg.LessThan(iceberg.Reference("id"), below), nil); err != nil {
			return fmt.Errorf("delete the rows of id below %d: %w", below, err)
		}
		return nil
	})
}

const (
	deletesBegin = "<!-- bench-segments-deletes:begin -->"
	deletesEnd   = "<!-- bench-segments-deletes:end -->"
)

func deletesBlock() report.Block {
	return report.Block{Begin: deletesBegin, End: deletesEnd, Section: "## A data file with a deletion vector\n\n" +
		"`make bench-deletes` (`segbench deletes`): the sync of one data file (the benchmark file) " +
		"with a deletion vector on it, as whole processes in turn.\n\n"}
}

// renderDeletes is the block: medians of each contender and their ratios.
func renderDeletes(o runOptions, below int64, a, b string, got [][]measurement) string {
	med := func(ms []measurement, f func(measurement) float64) float64 {
		vs := make([]float64, len(ms))
		for i, m := range ms {
			vs[i] = f(m)
		}
		slices.Sort(vs)
		return vs[len(vs)/2]
	}
	cpu := func(m measurement) float64 { return m.cpu.Seconds() }
	user := func(m measurement) float64 { return m.user.Seconds() }
	rss := func(m measurement) float64 { return float64(m.rssKiB) / 1024 }
	var s strings.Builder
	fmt.Fprintf(&s, "%s\nLast run: %s, %d rows, the rows of id below %d deleted by one deletion vector (%d rows kept); "+
		"medians of %d runs each, in turn, after one warm-up round; the planner, the builder and the tarball as a sync "+
		"does them, in one process (`segbench sync -reader watcher`).\n\n", deletesBegin,
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), o.rows, below, got[0][0].rows, o.runs)
	s.WriteString("| contender | CPU s | user CPU s | peak RSS MiB |\n|---|---:|---:|---:|\n")
	for i, name := range []string{a, b} {
		fmt.Fprintf(&s, "| %s | %.2f | %.2f | %.0f |\n", name, med(got[i], cpu), med(got[i], user), med(got[i], rss))
	}
	fmt.Fprintf(&s, "\nfloe against iceberg-go's scan: CPU **%.2f×**, user CPU %.2f×, peak RSS **%.2f×**.\n%s\n",
		med(got[0], cpu)/med(got[1], cpu), med(got[0], user)/med(got[1], user), med(got[0], rss)/med(got[1], rss), deletesEnd)
	return s.String()
}
