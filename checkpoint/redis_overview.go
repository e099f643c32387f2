package checkpoint

import (
	"context"
	"errors"
	"fmt"

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
		if out[i], err = decodeOverview(names[i], cmd); err != nil {
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

// decodeOverview reads one reply of overviewLua.
func decodeOverview(name string, cmd *redis.Cmd) (TableOverview, error) {
	ov := TableOverview{Table: name}
	vals, err := cmd.Slice()
	if err != nil {
		return ov, err
	}
	if len(vals) != 3 {
		return ov, fmt.Errorf("overview of table %q: %d values, want 3", name, len(vals))
	}
	if raw, ok := vals[0].(string); ok {
		var h checkpointHeader
		if err := decode("checkpoint of table "+quote(name), []byte(raw), &h); err != nil {
			return ov, err
		}
		sum := h.summary()
		ov.Summary = &sum
	}
	if raw, ok := vals[1].(string); ok {
		if ov.LastRun, err = decodeRun(name, []byte(raw)); err != nil {
			return ov, err
		}
	}
	if raw, ok := vals[2].(string); ok {
		if ov.Observation, err = decodeObservation(name, []byte(raw)); err != nil {
			return ov, err
		}
	}
	return ov, nil
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
