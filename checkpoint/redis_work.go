package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// workGroup is the one consumer group every replica's builders join.
const workGroup = "floe-builders"

// workResultTTL bounds how long uncollected results of a dead run stay.
const workResultTTL = time.Hour

// heldLua is the test that builder (ARGV[2]) holds entry ARGV[3] of stream
// KEYS[1] in group ARGV[1].
const heldLua = `
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
local held = #p > 0 and p[1][2] == ARGV[2]
`

// heartbeatLua: KEYS stream; ARGV group, builder, id. Returns 1 | 0.
const heartbeatLua = heldLua + `
if not held then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
return 1
`

// confirmLua: KEYS stream, lease; ARGV group, builder, id, owner, token.
// Returns "ok" | "lost" | "fenced".
const confirmLua = heldLua + `
if not held then return 'lost' end
local cur = redis.call('HMGET', KEYS[2], 'owner', 'token')
if cur[1] ~= ARGV[4] or cur[2] ~= ARGV[5] then return 'fenced' end
return 'ok'
`

// completeLua: KEYS stream, results list; ARGV group, builder, id, result
// JSON ("" to discard), ttl ms. Returns 1 | 0.
const completeLua = heldLua + `
if not held then return 0 end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
redis.call('XDEL', KEYS[1], ARGV[3])
if ARGV[4] ~= '' then
  redis.call('RPUSH', KEYS[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
return 1
`

var _ WorkQueue = (*Redis)(nil)

func (k redisKeys) work() string                      { return k.prefix + "v1:work" }
func (k redisKeys) workDone(table, run string) string { return k.key("workdone", table) + ":" + run }

// Publish appends one stream entry per item.
func (r *Redis) Publish(ctx context.Context, items []WorkItem) ([]WorkItem, error) {
	out := make([]WorkItem, len(items))
	cmds := make([]*redis.StringCmd, len(items))
	_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, it := range items {
			raw, err := json.Marshal(it)
			if err != nil {
				return fmt.Errorf("encode work item %s: %w", it.Key, err)
			}
			cmds[i] = p.XAdd(ctx, &redis.XAddArgs{Stream: r.keys.work(), Values: []any{"item", raw}})
		}
		return nil
	})
	if err != nil {
		return nil, redisErr("publish work", err)
	}
	for i, it := range items {
		it.ID = cmds[i].Val()
		out[i] = it
	}
	return out, nil
}

// Claim takes a stale item (XAUTOCLAIM) or a new one (XREADGROUP).
func (r *Redis) Claim(ctx context.Context, builder string, wait, stale time.Duration) (WorkItem, bool, error) {
	it, ok, err := r.claimStale(ctx, builder, stale)
	if isNoGroup(err) {
		if err := r.ensureWorkGroup(ctx); err != nil {
			return WorkItem{}, false, err
		}
		it, ok, err = r.claimStale(ctx, builder, stale)
	}
	if err != nil || ok {
		return it, ok, err
	}
	block := wait
	if block <= 0 {
		block = -1 // BLOCK 0 would wait forever
	}
	streams, err := r.client.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: workGroup, Consumer: builder, Streams: []string{r.keys.work(), ">"}, Count: 1, Block: block,
	}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return WorkItem{}, false, nil
	case err != nil:
		return WorkItem{}, false, redisErr("claim work", err)
	}
	for _, s := range streams {
		for _, msg := range s.Messages {
			return decodeWorkItem(msg)
		}
	}
	return WorkItem{}, false, nil
}

// claimStale walks the pending list for an item idle longer than stale.
func (r *Redis) claimStale(ctx context.Context, builder string, stale time.Duration) (WorkItem, bool, error) {
	start := "0-0"
	for range 100 {
		msgs, next, err := r.client.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: r.keys.work(), Group: workGroup, Consumer: builder, MinIdle: stale, Start: start, Count: 1,
		}).Result()
		if err != nil {
			return WorkItem{}, false, err
		}
		for _, msg := range msgs {
			if it, ok, err := decodeWorkItem(msg); ok || err != nil {
				return it, ok, err
			}
		}
		if next == "0-0" || next == "" {
			return WorkItem{}, false, nil
		}
		start = next
	}
	return WorkItem{}, false, nil
}

func isNoGroup(err error) bool { return err != nil && strings.Contains(err.Error(), "NOGROUP") }

// ensureWorkGroup creates the stream and group (from the first entry).
func (r *Redis) ensureWorkGroup(ctx context.Context) error {
	err := r.client.XGroupCreateMkStream(ctx, r.keys.work(), workGroup, "0").Err()
	if err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return redisErr("create work group", err)
	}
	return nil
}

func decodeWorkItem(msg redis.XMessage) (WorkItem, bool, error) {
	raw, ok := msg.Values["item"].(string)
	if !ok {
		return WorkItem{}, false, nil // deleted under us
	}
	var it WorkItem
	if err := json.Unmarshal([]byte(raw), &it); err != nil {
		return WorkItem{}, false, fmt.Errorf("decode work item %s: %w", msg.ID, err)
	}
	it.ID = msg.ID
	return it, true, nil
}

// Heartbeat resets the item's idle time if builder still holds it.
func (r *Redis) Heartbeat(ctx context.Context, builder string, item WorkItem) error {
	n, err := r.scripts.heartbeat.Run(ctx, r.client, []string{r.keys.work()}, workGroup, builder, item.ID).Int()
	if err != nil {
		return redisErr("heartbeat work item "+item.Key, err)
	}
	if n == 0 {
		return fmt.Errorf("heartbeat work item %s of table %q: %w: reclaimed", item.Key, item.Table, ErrFenced)
	}
	return nil
}

// Confirm checks W1 in one script.
func (r *Redis) Confirm(ctx context.Context, builder string, item WorkItem) error {
	op := fmt.Sprintf("confirm work item %s of table %q", item.Key, item.Table)
	res, err := r.scripts.confirm.Run(ctx, r.client, []string{r.keys.work(), r.keys.lease(item.Table)},
		workGroup, builder, item.ID, item.Owner, strconv.FormatInt(item.Token, 10)).Text()
	if err != nil {
		return redisErr(op, err)
	}
	switch res {
	case "ok":
		return nil
	case "lost":
		return fmt.Errorf("%s: %w: reclaimed by another builder", op, ErrFenced)
	default:
		return fmt.Errorf("%s: %w: lease token %d is no longer current", op, ErrFenced, item.Token)
	}
}

// Complete pushes res to the run's result list and removes the item.
func (r *Redis) Complete(ctx context.Context, builder string, item WorkItem, res WorkResult) error {
	raw, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode work result %s: %w", item.Key, err)
	}
	return r.finish(ctx, "complete", builder, item, string(raw))
}

// Discard removes the item without a result.
func (r *Redis) Discard(ctx context.Context, builder string, item WorkItem) error {
	return r.finish(ctx, "discard", builder, item, "")
}

func (r *Redis) finish(ctx context.Context, verb, builder string, item WorkItem, result string) error {
	op := fmt.Sprintf("%s work item %s of table %q", verb, item.Key, item.Table)
	keys := []string{r.keys.work(), r.keys.workDone(item.Table, item.RunID)}
	n, err := r.scripts.complete.Run(ctx, r.client, keys, workGroup, builder, item.ID, result, workResultTTL.Milliseconds()).Int()
	if err != nil {
		return redisErr(op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w: reclaimed", op, ErrFenced)
	}
	return nil
}

// Results pops the run's results, blocking up to wait for the first.
func (r *Redis) Results(ctx context.Context, table, runID string, wait time.Duration) ([]WorkResult, error) {
	op := "collect work results of table " + quote(table)
	key := r.keys.workDone(table, runID)
	var raws []string
	if wait > 0 { // BLPOP 0 would wait forever
		first, err := r.client.BLPop(ctx, wait, key).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return nil, nil
		case err != nil:
			return nil, redisErr(op, err)
		}
		raws = append(raws, first[1])
	}
	more, err := r.client.LPopCount(ctx, key, 1000).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, redisErr(op, err)
	}
	raws = append(raws, more...)
	out := make([]WorkResult, 0, len(raws))
	for _, raw := range raws {
		var res WorkResult
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			return nil, fmt.Errorf("%s: decode result: %w", op, err)
		}
		out = append(out, res)
	}
	return out, nil
}

// Cancel removes the given items of the run and its result list.
func (r *Redis) Cancel(ctx context.Context, table, runID string, items []WorkItem) error {
	_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, it := range items {
			if it.ID == "" {
				continue
			}
			p.XAck(ctx, r.keys.work(), workGroup, it.ID)
			p.XDel(ctx, r.keys.work(), it.ID)
		}
		p.Del(ctx, r.keys.workDone(table, runID))
		return nil
	})
	if err != nil && !isNoGroup(err) {
		return redisErr("cancel work of table "+quote(table), err)
	}
	return nil
}
