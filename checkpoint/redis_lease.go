package checkpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// stagingTTL bounds how long a half-written file map of an interrupted
// commit lingers in Redis.
const stagingTTL = time.Hour

// stagingChunk is how many file entries go into one HSET while staging.
const stagingChunk = 1000

// GetCheckpoint returns the table's checkpoint with its file map, read in
// one MULTI so header and files are from the same commit.
func (r *Redis) GetCheckpoint(ctx context.Context, table string) (Checkpoint, error) {
	op := "get checkpoint of table " + quote(table)
	var hdrCmd *redis.StringCmd
	var filesCmd *redis.MapStringStringCmd
	_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		hdrCmd = p.Get(ctx, r.keys.checkpoint(table))
		filesCmd = p.HGetAll(ctx, r.keys.files(table))
		return nil
	})
	if err != nil {
		return Checkpoint{}, redisErr(op, err)
	}
	var h checkpointHeader
	if err := decode("checkpoint of table "+quote(table), []byte(hdrCmd.Val()), &h); err != nil {
		return Checkpoint{}, fmt.Errorf("%s: %w", op, err)
	}
	files := make(map[string]FileState, len(filesCmd.Val()))
	d := newFileDecoder(table)
	for path, raw := range filesCmd.Val() {
		fs, err := d.decode(path, []byte(raw))
		if err != nil {
			return Checkpoint{}, fmt.Errorf("%s: %w", op, err)
		}
		files[path] = fs
	}
	return h.checkpoint(files), nil
}

// GetCheckpointSummary returns the table's checkpoint without its files.
func (r *Redis) GetCheckpointSummary(ctx context.Context, table string) (CheckpointSummary, error) {
	op := "get checkpoint summary of table " + quote(table)
	var hdrCmd *redis.StringCmd
	var countCmd *redis.IntCmd
	_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		hdrCmd = p.Get(ctx, r.keys.checkpoint(table))
		countCmd = p.HLen(ctx, r.keys.files(table))
		return nil
	})
	if err != nil {
		return CheckpointSummary{}, redisErr(op, err)
	}
	var h checkpointHeader
	if err := decode("checkpoint of table "+quote(table), []byte(hdrCmd.Val()), &h); err != nil {
		return CheckpointSummary{}, fmt.Errorf("%s: %w", op, err)
	}
	h.FileCount = int(countCmd.Val()) // the map's own length (earlier releases' deltas stored no count)
	return h.summary(), nil
}

// CommitCheckpoint stages the file map and its whole file index under
// private keys, then a script checks the lease and swaps header, files
// and index in at once (C1, C2, C14).
func (r *Redis) CommitCheckpoint(ctx context.Context, lease Lease, cp Checkpoint) error {
	if err := checkCommit(lease, cp); err != nil {
		return fmt.Errorf("commit checkpoint: %w", err)
	}
	op := "commit checkpoint of table " + quote(cp.Table)
	cp = stampCheckpoint(cp, lease, time.Now())
	w, err := freshIndexWrite(cp.Files)
	if err != nil {
		return err
	}
	hdr, stamp, err := encodeHeaderAndStamp(newHeader(cp), w.counts)
	if err != nil {
		return err
	}
	n := nonce()
	staging, st := r.keys.staging(cp.Table, n), r.keys.indexStaging(cp.Table, n)
	b, err := r.stageCommit(ctx, staging, "", st, cp.Files, nil, w)
	if err != nil {
		return redisErr(op, err)
	}
	keys := slices.Concat([]string{r.keys.lease(cp.Table), staging, r.keys.files(cp.Table), r.keys.checkpoint(cp.Table)},
		r.keys.index(cp.Table), st.keys())
	args := append([]any{lease.Owner, strconv.FormatInt(lease.Token, 10), len(cp.Files), hdr, stamp}, w.sizes()...)
	res, err := b.commit(r.scripts.commit, keys, args...)
	if err != nil {
		return redisErr(op, err)
	}
	switch res {
	case "ok":
		return nil
	case "fenced":
		return fmt.Errorf("%s: %w (token %d)", op, ErrFenced, lease.Token)
	default:
		return fmt.Errorf("%s: staged file map incomplete (%s); nothing committed", op, res)
	}
}

func nonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// PutRun inserts or updates a run and trims the history in one script.
func (r *Redis) PutRun(ctx context.Context, run Run) error {
	if err := checkRun(run); err != nil {
		return fmt.Errorf("put run: %w", err)
	}
	run = trimRunLog(run)
	op := fmt.Sprintf("put run %q of table %q", run.ID, run.Table)
	raw, err := encode("run", runRecord{versioned{FormatCurrent}, run})
	if err != nil {
		return err
	}
	keys := []string{r.keys.runs(run.Table), r.keys.runOrder(run.Table)}
	if err := r.scripts.putRun.Run(ctx, r.client, keys, run.ID, runOrderKey(run), raw, RunHistoryLimit).Err(); err != nil {
		return redisErr(op, err)
	}
	return nil
}

// ListRuns returns up to limit runs of table, newest first.
func (r *Redis) ListRuns(ctx context.Context, table string, limit int) ([]Run, error) {
	op := "list runs of table " + quote(table)
	keys := []string{r.keys.runs(table), r.keys.runOrder(table)}
	vals, err := r.scripts.listRuns.Run(ctx, r.client, keys, runLimit(limit)).Slice()
	if err != nil {
		return nil, redisErr(op, err)
	}
	out := make([]Run, 0, len(vals))
	for _, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		var rec runRecord
		if err := decode("run of table "+quote(table), []byte(s), &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		out = append(out, rec.Run)
	}
	return out, nil
}

// GetRun returns one run.
func (r *Redis) GetRun(ctx context.Context, table, id string) (Run, error) {
	op := fmt.Sprintf("get run %q of table %q", id, table)
	raw, err := r.client.HGet(ctx, r.keys.runs(table), id).Bytes()
	if err != nil {
		return Run{}, redisErr(op, err)
	}
	var rec runRecord
	if err := decode(op, raw, &rec); err != nil {
		return Run{}, err
	}
	return rec.Run, nil
}

// AcquireLease takes or extends the table's lease for owner; the lease
// key expires on the Redis server after ttl.
func (r *Redis) AcquireLease(ctx context.Context, table, owner string, ttl time.Duration) (Lease, error) {
	if err := checkAcquire(table, owner, ttl); err != nil {
		return Lease{}, fmt.Errorf("acquire lease: %w", err)
	}
	op := "acquire lease on table " + quote(table)
	exp := time.Now().Add(ttl).UTC()
	keys := []string{r.keys.table(table), r.keys.lease(table), r.keys.fence(table)}
	res, err := r.scripts.acquire.Run(ctx, r.client, keys,
		owner, ttl.Milliseconds(), exp.Format(time.RFC3339Nano), int(FormatCurrent)).StringSlice()
	if err != nil {
		return Lease{}, redisErr(op, err)
	}
	switch {
	case len(res) == 1 && res[0] == "nf":
		return Lease{}, fmt.Errorf("%s: %w", op, ErrNotFound)
	case len(res) == 2 && res[0] == "held":
		return Lease{}, fmt.Errorf("%s: %w (owner %q)", op, ErrLeaseHeld, res[1])
	case len(res) == 2 && res[0] == "ok":
		tok, err := strconv.ParseInt(res[1], 10, 64)
		if err != nil {
			return Lease{}, fmt.Errorf("%s: bad token %q: %w", op, res[1], err)
		}
		return Lease{Table: table, Owner: owner, Token: tok, ExpiresAt: exp}, nil
	}
	return Lease{}, fmt.Errorf("%s: unexpected script reply %q", op, res)
}

// RenewLease extends a lease that is still current.
func (r *Redis) RenewLease(ctx context.Context, lease Lease, ttl time.Duration) (Lease, error) {
	if err := checkTTL(ttl); err != nil {
		return Lease{}, fmt.Errorf("renew lease: %w", err)
	}
	op := "renew lease on table " + quote(lease.Table)
	exp := time.Now().Add(ttl).UTC()
	n, err := r.scripts.renew.Run(ctx, r.client, []string{r.keys.lease(lease.Table)},
		lease.Owner, strconv.FormatInt(lease.Token, 10), ttl.Milliseconds(), exp.Format(time.RFC3339Nano)).Int()
	if err != nil {
		return Lease{}, redisErr(op, err)
	}
	if n == 0 {
		return Lease{}, fmt.Errorf("%s: %w (token %d)", op, ErrFenced, lease.Token)
	}
	lease.ExpiresAt = exp
	return lease, nil
}

// ReleaseLease gives up a lease that is still current.
func (r *Redis) ReleaseLease(ctx context.Context, lease Lease) error {
	op := "release lease on table " + quote(lease.Table)
	n, err := r.scripts.release.Run(ctx, r.client, []string{r.keys.lease(lease.Table)},
		lease.Owner, strconv.FormatInt(lease.Token, 10)).Int()
	if err != nil {
		return redisErr(op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w (token %d)", op, ErrFenced, lease.Token)
	}
	return nil
}

// GetLease returns the table's unexpired lease.
func (r *Redis) GetLease(ctx context.Context, table string) (Lease, error) {
	op := "get lease on table " + quote(table)
	h, err := r.client.HGetAll(ctx, r.keys.lease(table)).Result()
	if err != nil {
		return Lease{}, redisErr(op, err)
	}
	if len(h) == 0 {
		return Lease{}, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	l, err := parseLeaseHash(table, h)
	if err != nil {
		return Lease{}, fmt.Errorf("%s: %w", op, err)
	}
	return l, nil
}

// ListLeases returns every unexpired lease of a known table, by table.
func (r *Redis) ListLeases(ctx context.Context) ([]Lease, error) {
	names, err := r.client.SMembers(ctx, r.keys.tables()).Result()
	if err != nil {
		return nil, redisErr("list leases", err)
	}
	slices.Sort(names)
	cmds := make([]*redis.MapStringStringCmd, len(names))
	_, err = r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range names {
			cmds[i] = p.HGetAll(ctx, r.keys.lease(n))
		}
		return nil
	})
	if err != nil {
		return nil, redisErr("list leases", err)
	}
	var out []Lease
	for i, c := range cmds {
		if len(c.Val()) == 0 {
			continue
		}
		l, err := parseLeaseHash(names[i], c.Val())
		if err != nil {
			return nil, fmt.Errorf("list leases: %w", err)
		}
		out = append(out, l)
	}
	return out, nil
}

func parseLeaseHash(table string, h map[string]string) (Lease, error) {
	v, err := strconv.Atoi(h["v"])
	if err != nil || FormatVersion(v) < FormatV1 || FormatVersion(v) > FormatCurrent {
		return Lease{}, fmt.Errorf("decode lease on table %q: format version %q not supported", table, h["v"])
	}
	tok, err := strconv.ParseInt(h["token"], 10, 64)
	if err != nil {
		return Lease{}, fmt.Errorf("decode lease on table %q: token: %w", table, err)
	}
	exp, err := time.Parse(time.RFC3339Nano, h["expiresAt"])
	if err != nil {
		return Lease{}, fmt.Errorf("decode lease on table %q: expiresAt: %w", table, err)
	}
	return Lease{Table: table, Owner: h["owner"], Token: tok, ExpiresAt: exp}, nil
}
