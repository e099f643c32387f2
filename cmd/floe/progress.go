package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressMode is how a long command shows how far it is.
type progressMode int

const (
	progressOff   progressMode = iota // nothing (-quiet)
	progressLines                     // a plain line now and then (logs, pipes)
	progressBar                       // one redrawn line (a terminal)
)

// progressLineEvery is how often progressLines writes a line.
const progressLineEvery = 5 * time.Second

// barWidth is the number of cells of the bar.
const barWidth = 30

// progressModeFor picks the bar on a terminal, lines elsewhere, nothing
// when quiet.
func progressModeFor(w io.Writer, quiet bool) progressMode {
	switch {
	case quiet:
		return progressOff
	case isTerminal(w):
		return progressBar
	}
	return progressLines
}

// isTerminal reports whether w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressView draws the progress of one run (files done of total, rows
// so far) for `floe sync` and `floe trigger -wait`. Safe for concurrent
// use.
type progressView struct {
	w     io.Writer
	label string
	mode  progressMode
	now   func() time.Time
	start time.Time

	mu       sync.Mutex
	drawn    bool      // the bar is on screen
	lastLine time.Time // when progressLines last wrote
	last     string    // the figures last written
	pending  string    // the newest figures, when not written yet
}

// newProgressView starts the view's clock; now may be nil (time.Now).
func newProgressView(w io.Writer, label string, mode progressMode, now func() time.Time) *progressView {
	if now == nil {
		now = time.Now
	}
	return &progressView{w: w, label: label, mode: mode, now: now, start: now()}
}

// update shows done of total files and rows.
func (p *progressView) update(done, total int, rows int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	figures := progressFigures(done, total, rows)
	now := p.now()
	switch p.mode {
	case progressBar:
		fmt.Fprintf(p.w, "\r\033[K%s %s %s %s", p.label, bar(done, total), figures, p.elapsed(now))
		p.drawn = true
	case progressLines:
		if figures == p.last {
			return
		}
		if !p.lastLine.IsZero() && now.Sub(p.lastLine) < progressLineEvery {
			p.pending = figures
			return
		}
		p.line(figures, now)
	}
}

// finish clears the bar, or writes the figures not written yet.
func (p *progressView) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.mode == progressBar && p.drawn:
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	case p.mode == progressLines && p.pending != "":
		p.line(p.pending, p.now())
	}
}

func (p *progressView) line(figures string, now time.Time) {
	fmt.Fprintf(p.w, "%s: %s, %s\n", p.label, figures, p.elapsed(now))
	p.lastLine, p.last, p.pending = now, figures, ""
}

func (p *progressView) elapsed(now time.Time) time.Duration {
	return now.Sub(p.start).Round(time.Second)
}

// progressFigures is "3/10 files, 1200 rows".
func progressFigures(done, total int, rows int64) string {
	return fmt.Sprintf("%d/%d files, %d rows", done, total, rows)
}

// bar is "[#########.....................]", full when total is 0.
func bar(done, total int) string {
	filled := barWidth
	if total > 0 {
		filled = barWidth * min(max(done, 0), total) / total
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", barWidth-filled) + "]"
}
