package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
)

func (k redisKeys) observation(n string) string { return k.key("observation", n) }

// putObservationLua: KEYS table, observation; ARGV JSON. Writes only while
// the table exists, so a check racing a delete leaves no orphan key.
const putObservationLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
return 1
`

// overviewLua: KEYS checkpoint header, run order, runs hash, observation.
// Returns {header|false, newest run|false, observation|false}. It is sent
// once per table, all tables in one pipeline: one round trip, and Redis
// serves other clients between the tables.
const overviewLua = `
local ids = redis.call('ZREVRANGE', KEYS[2], 0, 0)
local run = false
if #ids > 0 then run = redis.call('HGET', KEYS[3], ids[1]) end
return {redis.call('GET', KEYS[1]), run, redis.call('GET', KEYS[4])}
`

// redisOverviewScripts holds the overview scripts of one Redis store.
type redisOverviewScripts struct {
	putObservation, overview *redis.Script
}

func newRedisOverviewScripts() redisOverviewScripts {
	return redisOverviewScripts{putObservation: redis.NewScript(putObservationLua), overview: redis.NewScript(overviewLua)}
}

// PutObservation records the latest observation of an existing table.
func (r *Redis) PutObservation(ctx context.Context, table string, o Observation) error {
	op := "put observation of table " + quote(table)
	raw, err := encodeObservation(o)
	if err != nil {
		return err
	}
	n, err := r.overviewScripts.putObservation.Run(ctx, r.client,
		[]string{r.keys.table(table), r.keys.observation(table)}, raw).Int()
	if err != nil {
		return redisErr(op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}

// TableOverviews reads the overview of every name in one pipeline.
func (r *Redis) TableOverviews(ctx context.Context, names []string) ([]TableOverview, error) {
	if len(names) == 0 {
		return []TableOverview{}, nil
	}
	cmds, err := r.overviewPipeline(ctx, names)
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		if err = r.overviewScripts.overview.Load(ctx, r.client).Err(); err == nil {
			cmds, err = r.overviewPipeline(ctx, names)
		}
	}
	if err != nil {
		return nil, redisErr(fmt.Sprintf("read overviews of %d tables", len(names)), err)
	}
	out := make([]TableOverview, len(names))
	for i, cmd := range cmds {
		if out[i], err = r.overviews.decodeOverview(names[i], cmd); err != nil {
			return nil, fmt.Errorf("read table overviews: %w", err)
		}
	}
	return out, nil
}

func (r *Redis) overviewPipeline(ctx context.Context, names []string) ([]*redis.Cmd, error) {
	cmds := make([]*redis.Cmd, len(names))
	_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range names {
			keys := []string{r.keys.checkpoint(n), r.keys.runOrder(n), r.keys.runs(n), r.keys.observation(n)}
			cmds[i] = r.overviewScripts.overview.EvalSha(ctx, p, keys)
		}
		return nil
	})
	return cmds, err
}

// overviewCache keeps the last decoded overview records of each table
// with their raw text: a listing polled every few seconds finds most
// records unchanged, and comparing bytes is far cheaper than decoding
// JSON. A table deleted here is forgotten at once; one deleted by another
// replica stays until the cache holds maxOverviewEntries and starts over.
type overviewCache struct {
	mu      sync.Mutex
	entries map[string]overviewEntry
}

// maxOverviewEntries bounds the overview cache (a few KiB per table).
const maxOverviewEntries = 20_000

type overviewEntry struct {
	cpRaw, runRaw, obsRaw string
	sum                   *CheckpointSummary
	run                   *Run
	obs                   *Observation
}

// decodeOverview reads one reply of overviewLua.
func (c *overviewCache) decodeOverview(name string, cmd *redis.Cmd) (TableOverview, error) {
	ov := TableOverview{Table: name}
	vals, err := cmd.Slice()
	if err != nil {
		return ov, err
	}
	if len(vals) != 3 {
		return ov, fmt.Errorf("overview of table %q: %d values, want 3", name, len(vals))
	}
	cpRaw, _ := vals[0].(string)
	runRaw, _ := vals[1].(string)
	obsRaw, _ := vals[2].(string)
	c.mu.Lock()
	e, ok := c.entries[name]
	c.mu.Unlock()
	if !ok || e.cpRaw != cpRaw || e.runRaw != runRaw || e.obsRaw != obsRaw {
		if e, err = decodeOverviewEntry(name, cpRaw, runRaw, obsRaw); err != nil {
			return ov, err
		}
		c.mu.Lock()
		if c.entries == nil || len(c.entries) >= maxOverviewEntries {
			c.entries = map[string]overviewEntry{}
		}
		c.entries[name] = e
		c.mu.Unlock()
	}
	// Copies: callers own what they get.
	if e.sum != nil {
		sum := *e.sum
		ov.Summary = &sum
	}
	if e.run != nil {
		run := cloneRun(*e.run)
		ov.LastRun = &run
	}
	if e.obs != nil {
		obs := *e.obs
		ov.Observation = &obs
	}
	return ov, nil
}

func decodeOverviewEntry(name, cpRaw, runRaw, obsRaw string) (overviewEntry, error) {
	e := overviewEntry{cpRaw: cpRaw, runRaw: runRaw, obsRaw: obsRaw}
	var err error
	if cpRaw != "" {
		var h checkpointHeader
		if err := decode("checkpoint of table "+quote(name), []byte(cpRaw), &h); err != nil {
			return e, err
		}
		sum := h.summary()
		e.sum = &sum
	}
	if runRaw != "" {
		if e.run, err = decodeRun(name, []byte(runRaw)); err != nil {
			return e, err
		}
	}
	if obsRaw != "" {
		if e.obs, err = decodeObservation(name, []byte(obsRaw)); err != nil {
			return e, err
		}
	}
	return e, nil
}

// forget drops the table's entry (it was deleted).
func (c *overviewCache) forget(name string) {
	c.mu.Lock()
	delete(c.entries, name)
	c.mu.Unlock()
}

// TableRevision reads the table revision counter.
func (r *Redis) TableRevision(ctx context.Context) (int64, error) {
	rev, err := r.client.Get(ctx, r.keys.tableRev()).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, redisErr("read table revision", err)
	}
	return rev, nil
}
