package catalog_test

import (
	"github.com/floehq/floe/catalog"
	"strconv"
	"strings"
)

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }

// stepIndex returns the index of the named validation step, or -1.
func stepIndex(rep catalog.Report, name string) int {
	for i, s := range rep.Steps {
		if s.Name == name {
			return i
		}
	}
	return -1
}
