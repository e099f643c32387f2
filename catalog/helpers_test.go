package catalog_test

import (
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
