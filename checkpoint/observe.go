package checkpoint

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Observer hears of every store call: op names the operation (a Redis
// command such as "hget", a script such as "script commitDelta", "pipeline";
// a bolt transaction by what it does, such as "bolt get checkpoint"), never
// a key, table name or value. metrics.Registry implements it.
type Observer interface {
	StoreCall(op string, d time.Duration, err error)
}

// redisHook times every command and pipeline of one Redis client (so every
// Store method is covered, whatever methods the Store gains).
type redisHook struct {
	obs     Observer
	scripts map[string]string // sha1 → script name
}

func newRedisHook(obs Observer, s redisScripts, ts redisTableScripts) redisHook {
	named := map[string]*redis.Script{
		"acquire": s.acquire, "renew": s.renew, "release": s.release, "commit": s.commit, "create": s.create,
		"putRun": s.putRun, "listRuns": s.listRuns, "commitDelta": s.commitDelta,
		"ledger": s.ledger, "heartbeat": s.heartbeat, "confirm": s.confirm, "complete": s.complete,
		"tableWrite": ts.write, "tableDelete": ts.delete, "connDelete": ts.connDelete,
	}
	h := redisHook{obs: obs, scripts: map[string]string{}}
	for name, sc := range named {
		if sc != nil {
			h.scripts[sc.Hash()] = name
		}
	}
	return h
}

func (h redisHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h redisHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		h.obs.StoreCall(h.op(cmd), time.Since(start), callError(err))
		return err
	}
}

func (h redisHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		h.obs.StoreCall("pipeline", time.Since(start), callError(err))
		return err
	}
}

// op names a command: scripts by their name, other commands by theirs.
func (h redisHook) op(cmd redis.Cmder) string {
	name := strings.ToLower(cmd.Name())
	args := cmd.Args()
	if len(args) < 2 {
		return name
	}
	var sha string
	switch name {
	case "evalsha", "evalsha_ro":
		sha, _ = args[1].(string)
	case "eval", "eval_ro":
		src, _ := args[1].(string)
		sum := sha1.Sum([]byte(src))
		sha = hex.EncodeToString(sum[:])
	default:
		return name
	}
	if s, ok := h.scripts[sha]; ok {
		return "script " + s
	}
	return "script"
}

// callError is err unless it is an answer, not a failure: a missing key,
// or a script the server has not loaded yet (it is sent again at once).
func callError(err error) error {
	if err == nil || errors.Is(err, redis.Nil) || strings.HasPrefix(err.Error(), "NOSCRIPT") {
		return nil
	}
	return err
}

// Observe makes the store report every command and pipeline to o. Call it
// before the store is used.
func (r *Redis) Observe(o Observer) {
	r.client.AddHook(newRedisHook(o, r.scripts, r.tableScripts))
}

// Observe makes the store report every transaction to o. Call it before
// the store is used.
func (b *Bolt) Observe(o Observer) { b.obs = o }

// observe reports one bolt transaction; op's quoted names are cut off.
func (b *Bolt) observe(op string, start time.Time, err error) {
	if b.obs == nil {
		return
	}
	if i := strings.IndexByte(op, '"'); i >= 0 {
		op = op[:i]
	}
	op = strings.TrimSpace(op)
	for _, s := range []string{" of table", " on table"} {
		op = strings.TrimSuffix(op, s)
	}
	b.obs.StoreCall("bolt "+op, time.Since(start), err)
}
