package client

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// sortKeys are the sort orders a list may ask for.
func sortKeys() []string { return []string{"name", "state", "lastRun", "lag", "rows"} }

func validSort(s string) error {
	if s == "" || slices.Contains(sortKeys(), strings.TrimPrefix(s, "-")) {
		return nil
	}
	return fmt.Errorf("list tables: sort %q: want one of %s, optionally prefixed with -", s, strings.Join(sortKeys(), ", "))
}

// filterTables keeps the tables in one of opts.States whose name, source
// or connection holds opts.Q (case-insensitive), as the server does.
func filterTables(ts []Table, opts ListOptions) []Table {
	q := strings.ToLower(opts.Q)
	out := ts[:0:0]
	for _, t := range ts {
		if len(opts.States) > 0 && !slices.ContainsFunc(opts.States, func(s string) bool {
			return strings.EqualFold(strings.TrimSpace(s), t.Overview())
		}) {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(t.Name), q) &&
			!strings.Contains(strings.ToLower(t.Source), q) && !strings.Contains(strings.ToLower(t.Connection), q) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// sortTables orders ts by key ("-" prefix: descending), ties by name.
func sortTables(ts []Table, key string) {
	desc := strings.HasPrefix(key, "-")
	key = strings.TrimPrefix(key, "-")
	cmp := func(a, b Table) int {
		switch key {
		case "state":
			return strings.Compare(a.Overview(), b.Overview())
		case "lastRun":
			return lastRunAt(a).Compare(lastRunAt(b))
		case "lag":
			return compareInt(lagOf(a), lagOf(b))
		case "rows":
			return compareInt(a.RowCount(), b.RowCount())
		}
		return 0
	}
	slices.SortStableFunc(ts, func(a, b Table) int {
		c := cmp(a, b)
		if desc {
			c = -c
		}
		if c == 0 {
			c = strings.Compare(a.Name, b.Name)
		}
		return c
	})
}

func lastRunAt(t Table) time.Time {
	if t.LastRun == nil {
		return time.Time{}
	}
	return t.LastRun.StartedAt
}

func lagOf(t Table) int64 {
	if t.Lag == nil {
		return -1
	}
	return int64(t.Lag.Snapshots)
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
