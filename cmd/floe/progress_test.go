package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time      { return c.now }
func (c *fakeClock) Add(d time.Duration) { c.now = c.now.Add(d) }
func newFakeClock() *fakeClock           { return &fakeClock{now: renderNow} }
func (c *fakeClock) view(w *bytes.Buffer, m progressMode) *progressView {
	return newProgressView(w, "sync t", m, c.Now)
}

// Off a terminal the view writes a plain line at first and then at most
// every progressLineEvery, and the last figures at the end.
func TestProgressView_Lines(t *testing.T) {
	clock := newFakeClock()
	var out bytes.Buffer
	v := clock.view(&out, progressLines)
	v.update(0, 4, 0)
	clock.Add(time.Second)
	v.update(1, 4, 100) // too soon: held back
	v.update(1, 4, 100)
	clock.Add(progressLineEvery)
	v.update(2, 4, 200)
	clock.Add(time.Second)
	v.update(4, 4, 400) // held back, written by finish
	v.finish()
	want := "sync t: 0/4 files, 0 rows, 0s\n" +
		"sync t: 2/4 files, 200 rows, 6s\n" +
		"sync t: 4/4 files, 400 rows, 7s\n"
	if out.String() != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", out.String(), want)
	}
}

// On a terminal the view redraws one line and clears it at the end.
func TestProgressView_Bar(t *testing.T) {
	clock := newFakeClock()
	var out bytes.Buffer
	v := clock.view(&out, progressBar)
	v.update(1, 4, 10)
	clock.Add(3 * time.Second)
	v.update(4, 4, 40)
	v.finish()
	want := "\r\033[Ksync t [#######.......................] 1/4 files, 10 rows 0s" +
		"\r\033[Ksync t [##############################] 4/4 files, 40 rows 3s" +
		"\r\033[K"
	if out.String() != want {
		t.Fatalf("bar:\n%q\nwant:\n%q", out.String(), want)
	}
	out.Reset()
	v = clock.view(&out, progressOff)
	v.update(1, 2, 3)
	v.finish()
	if out.Len() != 0 {
		t.Fatalf("quiet view wrote %q", out.String())
	}
}

func TestProgressModeFor(t *testing.T) {
	var buf bytes.Buffer
	if m := progressModeFor(&buf, false); m != progressLines {
		t.Errorf("a buffer: mode %d, want lines", m)
	}
	if m := progressModeFor(&buf, true); m != progressOff {
		t.Errorf("quiet: mode %d, want off", m)
	}
	if got := bar(7, 0); !strings.HasPrefix(got, "[###") || strings.Contains(got, ".") {
		t.Errorf("bar of nothing to do: %s, want full", got)
	}
}
