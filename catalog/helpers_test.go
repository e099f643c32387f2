package catalog_test

import (
	"github.com/floehq/floe/catalog"
	"net"
	"strconv"
	"strings"
	"testing"
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

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// openOK opens cfg or ends the test; the catalog closes with it.
func openOK(t *testing.T, cfg catalog.Config) catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(t.Context(), cfg, discard())
	if err != nil {
		t.Fatalf("Open(%v): %v", cfg, err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat
}
