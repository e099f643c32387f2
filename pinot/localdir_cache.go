package pinot

import (
	"bytes"
	"slices"
	"sync"
)

// stateCache keeps, per table, the last state version this LocalDir read
// or published, decoded. A load whose file holds exactly those bytes takes
// a copy of the decoded state instead of decoding the file again: a table
// serving many segments otherwise pays a JSON decode of its whole served
// list for every upload. Versions are immutable files, and the bytes are
// compared whole, so a version another process published is never served
// from the cache.
type stateCache struct {
	mu      sync.Mutex
	byTable map[string]cachedState
}

type cachedState struct {
	raw     []byte
	served  []string
	lineage *localLineage
}

func newStateCache() *stateCache { return &stateCache{byTable: map[string]cachedState{}} }

// get returns a private copy of the state stored as raw, if cached.
func (c *stateCache) get(table string, raw []byte) (served []string, lineage *localLineage, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.byTable[table]
	if !ok || !bytes.Equal(s.raw, raw) {
		return nil, nil, false
	}
	return slices.Clone(s.served), s.lineage.clone(), true
}

// put remembers a copy of the state stored as raw.
func (c *stateCache) put(table string, raw []byte, served []string, lineage *localLineage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byTable[table] = cachedState{raw: raw, served: slices.Clone(served), lineage: lineage.clone()}
}

// clone is a deep copy (nil for nil).
func (l *localLineage) clone() *localLineage {
	if l == nil {
		return nil
	}
	out := &localLineage{Next: l.Next}
	if l.Entries != nil {
		out.Entries = make(map[string]*localLineageEntry, len(l.Entries))
		for id, e := range l.Entries {
			c := *e
			c.From, c.To = slices.Clone(e.From), slices.Clone(e.To)
			out.Entries[id] = &c
		}
	}
	return out
}
