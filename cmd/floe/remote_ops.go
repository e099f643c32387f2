package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/floehq/floe/client"
)

// cmdTrigger starts a run of a table now; with -wait it shows the run's
// progress and fails when the run does.
func cmdTrigger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trigger", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRemoteFlags(fs)
	wait := fs.Bool("wait", false, "wait for the run to end, showing its progress; exit non-zero when it failed")
	quiet := fs.Bool("quiet", false, "with -wait: show no progress")
	poll := fs.Duration("poll", client.DefaultPoll, "with -wait: how often to ask")
	name, err := parseWithTable(fs, args)
	if err != nil {
		return err
	}
	c, err := rf.client()
	if err != nil {
		return err
	}
	id, err := c.Trigger(ctx, name)
	if err != nil {
		return tableErr(name, err)
	}
	if !*wait {
		if rf.json() {
			return writeJSONTo(stdout, map[string]any{"runId": id})
		}
		fmt.Fprintf(stdout, "run %s of table %s started\n", id, name)
		return nil
	}
	view := newProgressView(stderr, "run "+name, progressModeFor(stderr, *quiet), nil)
	run, found, err := c.WaitRun(ctx, name, id, client.WaitOptions{Every: *poll, OnStatus: func(s client.Status) {
		if s.Progress != nil {
			view.update(s.Progress.FilesDone, s.Progress.FilesTotal, s.Progress.Rows)
		}
	}})
	view.finish()
	if err != nil {
		return tableErr(name, err)
	}
	if err := reportRun(stdout, rf.json(), name, id, run, found); err != nil {
		return err
	}
	if found && run.Failed() {
		return fmt.Errorf("run %s of table %s %s: %s", id, name, run.Status, printable(firstLine(run.Error)))
	}
	return nil
}

// reportRun writes the outcome of a waited-for run.
func reportRun(w io.Writer, asJSON bool, name, id string, run client.Run, found bool) error {
	if asJSON {
		out := map[string]any{"runId": id, "recorded": found}
		if found {
			out["run"] = run
		}
		return writeJSONTo(w, out)
	}
	if !found {
		fmt.Fprintf(w, "run %s of table %s ended with nothing to record (no new snapshot to sync)\n", id, name)
		return nil
	}
	renderRun(w, run)
	return nil
}

// cmdPause stashes a table's schedule: no run starts until resume.
func cmdPause(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return pauseOrResume(ctx, "pause", args, stdout, stderr)
}

// cmdResume restores a paused table's schedule.
func cmdResume(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return pauseOrResume(ctx, "resume", args, stdout, stderr)
}

func pauseOrResume(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRemoteFlags(fs)
	name, err := parseWithTable(fs, args)
	if err != nil {
		return err
	}
	c, err := rf.client()
	if err != nil {
		return err
	}
	before, err := c.Table(ctx, name)
	if err != nil {
		return tableErr(name, err)
	}
	wasPaused := before.TaskConfig[client.KeyPausedSchedule] != ""
	call, done := c.Pause, "paused"
	if verb == "resume" {
		call, done = c.Resume, "resumed"
	}
	rec, err := call(ctx, name)
	if err != nil {
		return tableErr(name, err)
	}
	if rf.json() {
		return writeJSONTo(stdout, rec)
	}
	switch {
	case verb == "pause" && wasPaused:
		fmt.Fprintf(stdout, "table %s was already paused (revision %d)\n", name, rec.Revision)
	case verb == "resume" && !wasPaused:
		fmt.Fprintf(stdout, "table %s was not paused (revision %d)\n", name, rec.Revision)
	default:
		fmt.Fprintf(stdout, "table %s %s (revision %d)\n", name, done, rec.Revision)
	}
	return nil
}
