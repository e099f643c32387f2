package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/floehq/floe/client"
)

// errorWidth is how many characters of an error a table column shows.
const errorWidth = 60

// writeJSONTo writes v as indented JSON.
func writeJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

func newTabs(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// renderTables writes one aligned line per table.
func renderTables(w io.Writer, ts []client.Table, now time.Time) error {
	if len(ts) == 0 {
		_, err := fmt.Fprintln(w, "no tables")
		return err
	}
	tw := newTabs(w)
	fmt.Fprintln(tw, "NAME\tSTATE\tROWS\tLAG\tLAST RUN\tNEXT RUN\tLAST ERROR")
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", printable(t.Name), t.Overview(), t.RowCount(), lagText(t.Lag),
			lastRunText(t.LastRun, now), nextRunText(t, now), orDash(truncate(printable(t.ErrorLine()), errorWidth)))
	}
	return tw.Flush()
}

// renderStatus writes one table's state as aligned "key value" lines.
func renderStatus(w io.Writer, t client.Table, now time.Time) error {
	tw := newTabs(w)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("table", printable(t.Name))
	row("source", fmt.Sprintf("%s (connection %s)", printable(t.Source), printable(t.Connection)))
	row("state", t.Overview())
	row("schedule", scheduleText(t))
	row("next run", nextRunText(t, now))
	row("rows", strconv.FormatInt(t.RowCount(), 10))
	if cp := t.Checkpoint; cp != nil {
		row("snapshot", fmt.Sprintf("%d (%d files, committed %s)", cp.SnapshotID, cp.FileCount, ago(now, cp.CommittedAt)))
	} else {
		row("snapshot", "- (nothing synced yet)")
	}
	row("lag", lagText(t.Lag))
	if t.Status.RunningRunID != "" {
		row("running", t.Status.RunningRunID)
	}
	if p := t.Status.Progress; p != nil {
		row("progress", bar(p.FilesDone, p.FilesTotal)+" "+progressFigures(p.FilesDone, p.FilesTotal, p.Rows))
	}
	if r := t.LastRun; r != nil {
		row("last run", fmt.Sprintf("%s %s, %s, %s, %s", r.ID, r.Status, ago(now, r.StartedAt), workText(*r), durationText(*r)))
	} else {
		row("last run", "-")
	}
	if e := t.ErrorLine(); e != "" {
		row("last error", printable(e))
	}
	if r := t.LastRun; r != nil && r.Failed() {
		for _, l := range lastLines(r.Log, statusLogLines) {
			row("run log", logLineText(l))
		}
	}
	return tw.Flush()
}

// statusLogLines is how many of a failed run's last log lines status shows.
const statusLogLines = 5

func lastLines(ls []client.RunLogLine, n int) []client.RunLogLine {
	return ls[max(0, len(ls)-n):]
}

// logLineText is "15:04:05 ERROR msg file=a.parquet" (attributes sorted).
func logLineText(l client.RunLogLine) string {
	keys := make([]string, 0, len(l.Attrs))
	for k := range l.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{l.At.UTC().Format(time.TimeOnly), l.Level, l.Msg}
	for _, k := range keys {
		parts = append(parts, k+"="+l.Attrs[k])
	}
	return printable(strings.Join(parts, " "))
}

// renderRuns writes one aligned line per run.
func renderRuns(w io.Writer, runs []client.Run, now time.Time) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "no runs")
		return err
	}
	tw := newTabs(w)
	fmt.Fprintln(tw, "RUN\tSTATUS\tTRIGGER\tKIND\tSTARTED\tDURATION\tSNAPSHOT\tFILES-ADDED\tFILES-REBUILT\tFILES-REMOVED\t"+
		"LIVE-FILES\tROWS-ADDED\tROWS-REBUILT\tSEGMENTS-BUILT\tSEGMENTS-REPLACED\tERROR")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%d\t%s\n", printable(r.ID), r.Status,
			printable(r.Trigger), orDash(printable(r.Kind)), ago(now, r.StartedAt), durationText(r), snapshotText(r.SnapshotID),
			counted(r, r.FilesAdded), counted(r, r.FilesRebuilt), counted(r, r.FilesRemoved), r.Live(),
			counted(r, r.RowsAdded), counted(r, r.RowsRebuilt), r.SegmentsGenerated, r.SegmentsDeleted,
			orDash(truncate(printable(firstLine(r.Error)), errorWidth)))
	}
	return tw.Flush()
}

// counted prints a count of what the run did, "-" when its record does
// not say (written before runs carried their kind, or never planned).
func counted[N int | int64](r client.Run, n N) string {
	if !r.Counted() {
		return "-"
	}
	return strconv.FormatInt(int64(n), 10)
}

// workText says what a run did: "merge: 1 file added, 8 rebuilt, 0
// removed of 16 live; 1000 rows added, 8000 rebuilt; 2 segments built,
// 8 replaced". A record without a kind says only what it knows.
func workText(r client.Run) string {
	segs := fmt.Sprintf("%s built, %d replaced", count(r.SegmentsGenerated, "segment"), r.SegmentsDeleted)
	switch {
	case !r.Counted() && r.Live() == 0: // never planned (or failed first)
		return count(r.Rows, "row") + " written"
	case !r.Counted(): // recorded before runs carried their kind
		return fmt.Sprintf("%s; %s written; %s", count(r.Live(), "live file"), count(r.Rows, "row"), segs)
	}
	return fmt.Sprintf("%s: %s added, %d rebuilt, %d removed of %d live; %s added, %d rebuilt; %s", r.Kind,
		count(r.FilesAdded, "file"), r.FilesRebuilt, r.FilesRemoved, r.Live(), count(r.RowsAdded, "row"), r.RowsRebuilt, segs)
}

// count writes n and the noun, plural unless n is 1.
func count[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// renderRun writes a finished run on one line, its error on the next.
func renderRun(w io.Writer, r client.Run) {
	fmt.Fprintf(w, "run %s of table %s: %s, snapshot %d, %s, %s\n",
		printable(r.ID), printable(r.Table), r.Status, r.SnapshotID, printable(workText(r)), durationText(r))
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", printable(r.Error))
	}
}

func lagText(l *client.Lag) string {
	switch {
	case l == nil:
		return "-"
	case l.Snapshots == 0:
		return "0"
	}
	return fmt.Sprintf("%d snap, %s", l.Snapshots, shortDuration(time.Duration(l.Seconds*float64(time.Second))))
}

func lastRunText(r *client.Run, now time.Time) string {
	if r == nil {
		return "-"
	}
	return r.Status + " " + ago(now, r.StartedAt)
}

// scheduleText is the table's schedule; a paused table's is the one it
// keeps stashed until it resumes.
func scheduleText(t client.Table) string {
	if s := t.Status.Schedule; s != "" {
		return printable(s)
	}
	if s := t.TaskConfig[client.KeyPausedSchedule]; s != "" {
		return printable(s) + " (paused)"
	}
	return "-"
}

// nextRunText is when the next scheduled run fires; "-" when none will
// (paused, disabled, or no schedule).
func nextRunText(t client.Table, now time.Time) string {
	switch st := t.Overview(); {
	case st == client.StatePaused || st == client.StateDisabled || t.Status.NextRun.IsZero():
		return "-"
	case !t.Status.NextRun.After(now):
		return "due"
	}
	return "in " + shortDuration(t.Status.NextRun.Sub(now))
}

func durationText(r client.Run) string {
	if r.Status == client.RunRunning || r.FinishedAt.IsZero() {
		return "-"
	}
	return r.Duration().Round(time.Millisecond).String()
}

func snapshotText(id int64) string {
	if id == 0 {
		return "-"
	}
	return strconv.FormatInt(id, 10)
}

// ago is "12s ago", "3m ago", ... ("-" for a zero time).
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < time.Second {
		return "just now"
	}
	return shortDuration(d) + " ago"
}

// shortDuration is d in its largest whole unit: 45s, 3m, 2h, 5d.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(first)
}

// truncate shortens s to n characters, ending in "…" when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// printable replaces control characters (a terminal escape in a table
// name or an error sent by the server) with '?'; tabs and newlines too,
// so one value stays in its column.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return '?'
		}
		return r
	}, s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
