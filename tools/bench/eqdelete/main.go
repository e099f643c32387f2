// Command eqbench measures what a CDC writer's commits cost floe: a
// table of disjoint id ranges per data file (keyed by id), each commit
// appending one file and deleting keys of existing rows by equality. It
// compares floe comparing each delete's keys with the files' key bounds
// (random keys, and recent keys as a monotonic CDC stream deletes) with
// the rule floe had before, every equality delete rebuilding every older
// file of its partition (plan.Options.EqualityDeletesWholePartition).
//
//	eqbench -files 1000 -rows 2000 -commits 5 -dir .cache/bench/eqdelete -report docs/benchmarks.md
//
// scripts/bench-eqdelete.sh drives it; see docs/benchmarks.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/report"
)

func main() { cli.Main(context.Background(), "eqbench", run) }

type options struct {
	files, rows, commits, deletes, perCommit int
	dir, report                              string
	scattered                                bool
	// profile, when set, is where the measured commits' CPU profile goes
	// (with -grow, one file per size: <profile>.<files>).
	profile string
	// grow lists table sizes in files: the key-bounds contender is
	// measured at each, the one table growing from one size to the next.
	grow []int
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("eqbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.files, "files", 1000, "data files of the table before the measured commits")
	fs.IntVar(&o.rows, "rows", 2000, "rows per data file")
	fs.IntVar(&o.commits, "commits", 5, "measured commits per contender (after one warm-up)")
	fs.IntVar(&o.deletes, "deletes", 100, "keys each commit deletes by equality")
	fs.IntVar(&o.perCommit, "per-commit", 100, "data files per commit while building the table")
	fs.StringVar(&o.dir, "dir", ".cache/bench/eqdelete", "scratch directory (recreated)")
	fs.BoolVar(&o.scattered, "scattered", false, "scatter the keys: every file's ids span the whole range (key index vs bounds)")
	fs.StringVar(&o.report, "report", "", "Markdown file whose eqdelete block is rewritten (empty: print only)")
	fs.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile of the measured commits (the table's commit and the run; "+
		"pprof -focus RunOnce shows the runs) to this file, with -grow one per size (.<files>)")
	grow := fs.String("grow", "", "table sizes in files, ascending and comma-separated (e.g. 1000,10000): measure "+
		"key bounds and key index at each as the table grows, instead of the contenders (-files is then the first size)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if *grow != "" {
		for _, f := range strings.Split(*grow, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2 || (len(o.grow) > 0 && n <= o.grow[len(o.grow)-1]) {
				return o, fmt.Errorf("-grow: %q is not a file count ≥ 2 above the one before", f)
			}
			o.grow = append(o.grow, n)
		}
		o.files = o.grow[0]
	}
	if o.files < 2 || o.rows < o.deletes || o.commits < 1 || o.deletes < 1 || o.perCommit < 1 {
		return o, errors.New("-files ≥ 2, -commits ≥ 1, -deletes ≥ 1 and -rows ≥ -deletes")
	}
	return o, nil
}

// contender is one way of planning, with one kind of keys.
type contender struct {
	name    string
	whole   bool // plan.Options.EqualityDeletesWholePartition
	noIndex bool // plan.Options.NoKeyIndex
	recent  bool // keys of the most recent file, else random existing keys
}

// contenders are the ways compared on a table of disjoint id ranges, or
// of scattered keys (where bounds rule nothing out).
func contenders(scattered bool) []contender {
	if scattered {
		return []contender{
			{name: "key bounds alone (floe before), random keys", noIndex: true},
			{name: "key bounds and key index, random keys"},
		}
	}
	return []contender{
		{name: "every older file (floe before), random keys", whole: true},
		{name: "key bounds and key index, random keys"},
		{name: "key bounds and key index, recent keys", recent: true},
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(o.dir); err != nil {
		return fmt.Errorf("clean %s: %w", o.dir, err)
	}
	fmt.Fprintf(stderr, "eqbench: building a table of %d files × %d rows\n", o.files, o.rows)
	c, err := newCDCTable(ctx, filepath.Join(o.dir, "lake"), o.files, o.rows, o.perCommit, o.scattered)
	if err != nil {
		return err
	}
	defer c.Close()
	keys := &keyPicker{rng: rand.New(rand.NewPCG(1, 2)), deleted: map[int64]bool{}, rows: int64(o.rows)}
	if len(o.grow) > 0 {
		return runGrowth(ctx, o, c, keys, stdout, stderr)
	}
	var results []result
	for i, ct := range contenders(o.scattered) {
		fmt.Fprintf(stderr, "eqbench: %s: %d commits on %d files\n", ct.name, o.commits, c.files)
		r, err := measure(ctx, o, c, keys, ct, filepath.Join(o.dir, fmt.Sprint("run", i)))
		if err != nil {
			return fmt.Errorf("%s: %w", ct.name, err)
		}
		results = append(results, r)
	}
	return report.Publish(stdout, o.report, reportBlock(o.scattered), renderReport(o, results))
}

// growthContender is the one measured as the table grows.
var growthContender = contender{name: "key bounds and key index, random keys"}

// runGrowth measures the growth contender at each size of o.grow, adding
// files to the one table between sizes.
func runGrowth(ctx context.Context, o options, c *cdcTable, keys *keyPicker, stdout, stderr io.Writer) error {
	var results []result
	for i, n := range o.grow {
		for c.files < n {
			if err := c.commit(ctx, min(o.perCommit, n-c.files), nil); err != nil {
				return err
			}
		}
		fmt.Fprintf(stderr, "eqbench: %s: %d commits on %d files\n", growthContender.name, o.commits, c.files)
		po := o
		if o.profile != "" {
			po.profile = fmt.Sprintf("%s.%d", o.profile, n)
		}
		r, err := measure(ctx, po, c, keys, growthContender, filepath.Join(o.dir, fmt.Sprint("grow", i)))
		if err != nil {
			return fmt.Errorf("%d files: %w", n, err)
		}
		r.files = n
		results = append(results, r)
	}
	return report.Publish(stdout, o.report, growthReportBlock(), renderGrowthReport(o, results))
}

// keyPicker picks keys of live rows and remembers what it deleted.
type keyPicker struct {
	rng     *rand.Rand
	deleted map[int64]bool
	rows    int64
}

// pick returns n live keys: among every file's, or the newest file's.
func (k *keyPicker) pick(files int, n int, recent bool) []int64 {
	lo, hi := int64(0), int64(files)*k.rows
	if recent {
		lo = hi - k.rows
	}
	out := make([]int64, 0, n)
	seen := map[int64]bool{}
	for len(out) < n {
		id := lo + k.rng.Int64N(hi-lo)
		if !k.deleted[id] && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// held is the live rows of the files holding keys (file i holds
// [i*rows, (i+1)*rows)) and how many such files there are.
func (k *keyPicker) held(keys []int64) (rows int64, files int) {
	hit := map[int64]bool{}
	for _, id := range keys {
		hit[id/k.rows] = true
	}
	for f := range hit {
		rows += k.rows
		for id := f * k.rows; id < (f+1)*k.rows; id++ {
			if k.deleted[id] {
				rows--
			}
		}
	}
	return rows, len(hit)
}

func (k *keyPicker) remember(keys []int64) {
	for _, id := range keys {
		k.deleted[id] = true
	}
}
