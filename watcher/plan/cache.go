package plan

import (
	"container/list"
	"sync"
)

// cache keeps decoded manifests and manifest lists by path, least
// recently used first out, within a byte budget. Both are immutable once
// written (Iceberg never rewrites a manifest in place), so a path always
// names the same content (P7). Sizes are estimates of the decoded form.
type cache struct {
	mu    sync.Mutex
	max   int64
	used  int64
	order *list.List // front: most recently used
	items map[string]*list.Element
	stats CacheStats
}

// CacheStats counts cache lookups (for benchmarks and tests), and the
// manifest lists read only to their head (P13).
type CacheStats struct {
	Hits, Misses int64
	Bytes        int64
	Entries      int
	ListHeads    int64
}

type cacheItem struct {
	key  string
	val  any
	size int64
}

func newCache(max int64) *cache {
	return &cache{max: max, order: list.New(), items: map[string]*list.Element{}}
}

// get returns the value stored under key.
func (c *cache) get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		c.stats.Misses++
		return nil, false
	}
	c.stats.Hits++
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem).val, true
}

// has reports whether key is cached without counting a lookup.
func (c *cache) has(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[key]
	return ok
}

// put stores val under key and evicts the least recently used values
// until the cache fits its budget. A value larger than the budget is not
// kept.
func (c *cache) put(key string, val any, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.max {
		return
	}
	if el, ok := c.items[key]; ok {
		c.used -= el.Value.(*cacheItem).size
		c.order.Remove(el)
	}
	c.items[key] = c.order.PushFront(&cacheItem{key: key, val: val, size: size})
	c.used += size
	for c.used > c.max {
		el := c.order.Back()
		it := el.Value.(*cacheItem)
		c.order.Remove(el)
		delete(c.items, it.key)
		c.used -= it.size
	}
}

// countHead counts a manifest list read only to its head.
func (c *cache) countHead() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.ListHeads++
}

func (c *cache) snapshot() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Bytes, s.Entries = c.used, len(c.items)
	return s
}

// CacheStats returns the manifest cache's counters.
func (p *Planner) CacheStats() CacheStats { return p.cache.snapshot() }
