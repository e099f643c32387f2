//go:build integration

package main

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// BenchmarkServe_ControlPropagation measures how fast a table change made
// through one `floe serve` replica reaches another's schedule: two
// replicas on one Redis (refresh interval one hour, so only the announced
// change can carry it), 200 pauses and resumes through replica A, each
// timed from A's answer to the first status on B that shows the new
// revision (B is polled back to back, so the figure includes up to one
// status round trip), and from the moment the request to A was sent,
// which adds A's own answer. scripts/bench-control.sh writes the result
// to docs/benchmarks.md.
func BenchmarkServe_ControlPropagation(b *testing.B) {
	const changes = 200
	c := newServeCluster(b, 2, time.Hour)
	tables := []string{"prop_0", "prop_1", "prop_2", "prop_3"}
	for _, name := range tables {
		c.create(0, name, "0 0 0 1 1 ?")
	}
	waitUntil(b, "first runs and B's schedule", 60*time.Second, func() bool {
		for _, name := range tables {
			st, err := c.status(1, name)
			if err != nil || st.State != "IDLE" || completed(c.runs(name)) == 0 {
				return false
			}
		}
		return true
	})
	b.ResetTimer()
	var delays, fromRequest []time.Duration
	for i := range changes {
		name := tables[i%len(tables)]
		op := "pause"
		if (i/len(tables))%2 == 1 {
			op = "resume"
		}
		var answer struct{ Revision int64 }
		sent := time.Now()
		c.must(0, "POST", "/api/v1/tables/"+name+"/"+op, nil, http.StatusOK, &answer)
		at := time.Now()
		for {
			st, err := c.status(1, name)
			if err == nil && st.Revision >= answer.Revision {
				delays, fromRequest = append(delays, time.Since(at)), append(fromRequest, time.Since(sent))
				break
			}
			if time.Since(at) > 10*time.Second {
				b.Fatalf("change %d (%s %s, revision %d) never reached replica B", i, op, name, answer.Revision)
			}
		}
	}
	b.StopTimer()
	p50, p99, worst := percentiles(delays)
	r50, r99, _ := percentiles(fromRequest)
	b.ReportMetric(float64(len(delays)), "changes")
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	b.ReportMetric(worst, "max-ms")
	b.ReportMetric(r50, "req-p50-ms")
	b.ReportMetric(r99, "req-p99-ms")
}

// percentiles returns the median, the 99th percentile and the maximum of
// ds, in milliseconds.
func percentiles(ds []time.Duration) (p50, p99, worst float64) {
	slices.Sort(ds)
	at := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000 }
	return at(0.5), at(0.99), at(1)
}
