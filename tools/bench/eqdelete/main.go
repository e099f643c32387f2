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

	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/report"
)

func main() { cli.Main(context.Background(), "eqbench", run) }

type options struct {
	files, rows, commits, deletes, perCommit int
	dir, report                              string
	scattered                                bool
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
	if err := fs.Parse(args); err != nil {
		return o, err
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
