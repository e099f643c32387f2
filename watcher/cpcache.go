package watcher

import (
	"slices"
	"sync"

	"github.com/floehq/floe/checkpoint"
)

// defaultCheckpointCacheFiles bounds the file entries the checkpoint cache
// holds across tables.
const defaultCheckpointCacheFiles = 500_000

// checkpointCache keeps the file maps of the checkpoints this replica
// committed last, so a run of a large table does not read its whole file
// map from the store when nothing else committed since (the stored
// summary still matches). A run takes its table's entry (the map is then
// the run's to change) and puts the checkpoint back after it committed;
// a failed run leaves no entry. Least recently put entries go first when
// the budget of file entries is exceeded.
type checkpointCache struct {
	mu     sync.Mutex
	budget int
	order  []string
	m      map[string]cachedCheckpoint
}

// cachedCheckpoint is a checkpoint with the indexes of its file map that
// runs built (fileIndexes), kept in step by the runs' commits.
type cachedCheckpoint struct {
	cp checkpoint.Checkpoint
	ix fileIndexes
}

func newCheckpointCache(budget int) *checkpointCache {
	if budget <= 0 {
		budget = defaultCheckpointCacheFiles
	}
	return &checkpointCache{budget: budget, m: map[string]cachedCheckpoint{}}
}

// take removes and returns the table's cached checkpoint and its indexes
// if it is the one the store summarises as sum.
func (c *checkpointCache) take(table string, sum checkpoint.CheckpointSummary) (checkpoint.Checkpoint, fileIndexes, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[table]
	if !ok {
		return checkpoint.Checkpoint{}, fileIndexes{}, false
	}
	c.drop(table)
	if !sameCheckpoint(e.cp.Summary(), sum) {
		return checkpoint.Checkpoint{}, fileIndexes{}, false
	}
	return e.cp, e.ix, true
}

// put caches cp as the table's checkpoint, with its indexes.
func (c *checkpointCache) put(table string, cp checkpoint.Checkpoint, ix fileIndexes) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(table)
	if !c.fits(len(cp.Files)) {
		return
	}
	c.m[table] = cachedCheckpoint{cp: cp, ix: ix}
	c.order = append(c.order, table)
	for c.size() > c.budget {
		c.drop(c.order[0])
	}
}

// fits reports whether a checkpoint of files entries can be kept.
func (c *checkpointCache) fits(files int) bool { return files <= c.budget }

func (c *checkpointCache) drop(table string) {
	delete(c.m, table)
	c.order = slices.DeleteFunc(c.order, func(s string) bool { return s == table })
}

func (c *checkpointCache) size() int {
	n := 0
	for _, e := range c.m {
		n += len(e.cp.Files)
	}
	return n
}
