package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/floehq/floe/client"
)

// cmdTables lists the tables of a running floe, every page by default.
func cmdTables(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tables", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRemoteFlags(fs)
	states := fs.String("state", "", "only tables in these states, comma-separated (IDLE, RUNNING, BACKFILLING, PAUSED, DISABLED, FAILED)")
	q := fs.String("q", "", "only tables whose name, source or connection holds this text")
	sortBy := fs.String("sort", "name", "order: name, state, lastRun, lag or rows; prefix - for descending")
	pageSize := fs.Int("page-size", 100, "tables per request")
	page := fs.Int("page", 0, "fetch only this page (default: every page)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("tables: unexpected arguments %q", fs.Args())
	}
	c, err := rf.client()
	if err != nil {
		return err
	}
	opts := client.ListOptions{PageSize: *pageSize, Q: *q, Sort: *sortBy, States: splitList(*states)}
	var tables []client.Table
	if *page > 0 {
		opts.Page = *page
		p, err := c.ListTables(ctx, opts)
		if err != nil {
			return remoteErr(err)
		}
		tables = p.Tables
	} else if tables, err = c.AllTables(ctx, opts); err != nil {
		return remoteErr(err)
	}
	if tables == nil {
		tables = []client.Table{}
	}
	if rf.json() {
		return writeJSONTo(stdout, map[string]any{"tables": tables})
	}
	return renderTables(stdout, tables, time.Now())
}

// cmdStatus shows one table: state, schedule, checkpoint, last run and,
// while it runs, its progress.
func cmdStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
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
	t, err := c.Table(ctx, name)
	if err != nil {
		return tableErr(name, err)
	}
	if rf.json() {
		return writeJSONTo(stdout, t)
	}
	return renderStatus(stdout, t, time.Now())
}

// cmdRuns lists a table's newest runs.
func cmdRuns(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rf := addRemoteFlags(fs)
	limit := fs.Int("limit", 20, "how many runs, newest first (at most 100)")
	name, err := parseWithTable(fs, args)
	if err != nil {
		return err
	}
	c, err := rf.client()
	if err != nil {
		return err
	}
	runs, err := c.Runs(ctx, name, *limit)
	if err != nil {
		return tableErr(name, err)
	}
	if runs == nil {
		runs = []client.Run{}
	}
	if rf.json() {
		return writeJSONTo(stdout, map[string]any{"runs": runs})
	}
	return renderRuns(stdout, runs, time.Now())
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, strings.ToUpper(v))
		}
	}
	return out
}
