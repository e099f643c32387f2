package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/client"
	"github.com/floehq/floe/internal/cpuprofile"
	"github.com/floehq/floe/watcher"
)

func cmdSync(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := configFlag(fs)
	tableName := fs.String("table", "", "external table to sync (required)")
	quiet := fs.Bool("quiet", false, "show no progress (default: a bar on a terminal, a line every few seconds otherwise)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole process to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tableName == "" {
		return fmt.Errorf("sync: -table is required")
	}
	stop, err := cpuprofile.Start(*cpuProfile)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	defer stop()
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, newLogger(cfg.Log, stderr), runsOnce)
	if errors.Is(err, checkpoint.ErrStoreLocked) {
		return fmt.Errorf("%w; a floe serve or demo is using this store: ask it to sync the table with 'floe trigger %s -wait'",
			err, *tableName)
	}
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	onProgress, done := syncProgress(a.watcher, *tableName, progressModeFor(stderr, *quiet), stderr)
	run, err := a.watcher.RunOnce(ctx, *tableName, "cli", onProgress)
	done()
	run.Error = a.red.Scrub(run.Error)
	printRun(stdout, run)
	return scrubErr(a.red, err)
}

func printRun(w io.Writer, r checkpoint.Run) {
	fmt.Fprintf(w, "run %s: %s, snapshot %d, %s, %.1fs\n",
		r.ID, r.Status, r.SnapshotID, workText(clientRun(r)), r.FinishedAt.Sub(r.StartedAt).Seconds())
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
}

// syncProgress returns the watcher callback that draws the run's progress
// on w (nil: no progress; rows come from the watcher's own count) and the
// function that ends the drawing once the run returned.
func syncProgress(wt *watcher.Watcher, table string, mode progressMode, w io.Writer) (watcher.Progress, func()) {
	if mode == progressOff {
		return nil, func() {}
	}
	view := newProgressView(w, "sync "+table, mode, nil)
	return func(done, total int) {
		p, _ := wt.Progress(table)
		view.update(done, total, p.Rows)
	}, view.finish
}

// clientRun is the run as the API shows it (the JSON both share), so
// sync says what a run did in the words of runs and status.
func clientRun(r checkpoint.Run) client.Run {
	var out client.Run
	if b, err := json.Marshal(r); err == nil {
		_ = json.Unmarshal(b, &out) // same fields, plain data: cannot fail
	}
	return out
}

// runsOnce tunes the watcher of a process that syncs once and exits.
func runsOnce(o *watcher.Options) { o.RunsOnce = true }
