//go:build integration

package catalog_test

import "github.com/floehq/floe/catalog"

// stepIndex returns the index of the named validation step, or -1.
func stepIndex(rep catalog.Report, name string) int {
	for i, s := range rep.Steps {
		if s.Name == name {
			return i
		}
	}
	return -1
}
