package metrics

import (
	"strconv"
	"strings"
)

// Sample returns the value of the series written exactly as series (name
// and labels in exposition order, e.g. `floe_runs_total{outcome="failed",table="t"}`)
// in Prometheus text, for tests and tools that read a scrape.
func Sample(text, series string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, series+" ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		return v, err == nil
	}
	return 0, false
}
