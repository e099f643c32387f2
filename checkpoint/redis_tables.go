package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/floehq/floe/internal/sleep"
)

// Table records on Redis (doc.go): every write is one script that takes
// the next value of the table revision counter, writes the record with
// that revision as its first JSON field, and appends the change to the
// change stream under the entry id "<revision>-0", all atomically. The
// stream is the announcement: readers XREAD it from the revision they
// hold, so a reader that was away resumes where it stopped.

func (k redisKeys) tableRev() string     { return k.prefix + "v1:tablerev" }
func (k redisKeys) tableChanges() string { return k.prefix + "v1:tablechanges" }

// nextRevLua sets rev to the next table revision: one above the counter
// (KEYS[3]) and above the change stream's (KEYS[4]) newest entry, so the
// two never disagree even if one of them was lost.
const nextRevLua = `
local rev = tonumber(redis.call('GET', KEYS[3]) or '0') + 1
local top = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)
if #top > 0 then
  local last = tonumber(string.match(top[1][1], '^(%d+)-'))
  if last >= rev then rev = last + 1 end
end
`

// tableWriteLua: KEYS table, table index, revision counter, change
// stream, and (bound) the connection's key; ARGV mode
// (create|bound|put|cas), record JSON without "revision", name, expected
// revision (cas), stream length. Returns {"ok", rev} | {"exists"} |
// {"missing"} | {"stale", stored rev} | {"noconn"}.
const tableWriteLua = `
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == 'bound' and redis.call('EXISTS', KEYS[5]) == 0 then return {'noconn'} end
if (ARGV[1] == 'create' or ARGV[1] == 'bound') and cur then return {'exists'} end
if ARGV[1] == 'cas' then
  if not cur then return {'missing'} end
  local have = string.match(cur, '^{"revision":(%d+),') or '0'
  if tonumber(have) ~= tonumber(ARGV[4]) then return {'stale', have} end
end
` + nextRevLua + `
local rec = '{"revision":' .. string.format('%d', rev) .. ',' .. string.sub(ARGV[2], 2)
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[5], string.format('%d-0', rev), 'name', ARGV[3], 'table', rec)
redis.call('SET', KEYS[3], string.format('%d', rev))
redis.call('SET', KEYS[1], rec)
redis.call('SADD', KEYS[2], ARGV[3])
return {'ok', string.format('%d', rev)}
`

// tableDeleteLua: KEYS table, table index, revision counter, change
// stream, then the table's dependent keys; ARGV name, stream length.
// Returns 1 if the table existed (only then is a change announced).
const tableDeleteLua = `
local existed = redis.call('EXISTS', KEYS[1]) == 1
if existed then
` + nextRevLua + `
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[2], string.format('%d-0', rev), 'name', ARGV[1], 'deleted', '1')
  redis.call('SET', KEYS[3], string.format('%d', rev))
end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
for i = 5, #KEYS do redis.call('DEL', KEYS[i]) end
if existed then return 1 end
return 0
`

// connDeleteLua: KEYS connection, connection index, table index; ARGV
// connection name, the table key prefix. Deletes the connection unless a
// table names it (C13): returns {"ok"} | {"missing"} | {"inuse", table...}.
const connDeleteLua = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local users = {'inuse'}
for _, name in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  local raw = redis.call('GET', ARGV[2] .. name)
  if raw then
    local ok, rec = pcall(cjson.decode, raw)
    if ok and type(rec) == 'table' and rec['connection'] == ARGV[1] then table.insert(users, name) end
  end
end
if #users > 1 then return users end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return {'ok'}
`

// Write modes of tableWriteLua.
const (
	tableCreate = "create"
	tableBound  = "bound"
	tablePut    = "put"
	tableCAS    = "cas"
)

// redisTableScripts holds the table-record scripts of one Redis store.
type redisTableScripts struct {
	write, delete, connDelete *redis.Script
}

func newRedisTableScripts() redisTableScripts {
	return redisTableScripts{write: redis.NewScript(tableWriteLua), delete: redis.NewScript(tableDeleteLua),
		connDelete: redis.NewScript(connDeleteLua)}
}

// writeTable runs tableWriteLua and returns the record as stored.
func (r *Redis) writeTable(ctx context.Context, verb, mode string, t Table) (Table, error) {
	op := verb + " " + quote(t.Name)
	expected := t.Revision
	t.Revision = 0 // the script writes it, first
	raw, err := encode("table", tableRecord{versioned{FormatCurrent}, t})
	if err != nil {
		return Table{}, err
	}
	keys := []string{r.keys.table(t.Name), r.keys.tables(), r.keys.tableRev(), r.keys.tableChanges()}
	if mode == tableBound {
		keys = append(keys, r.keys.conn(t.Connection))
	}
	res, err := r.tableScripts.write.Run(ctx, r.client, keys,
		mode, raw, t.Name, expected, redisChangeStreamLen).StringSlice()
	if err != nil {
		return Table{}, redisErr(op, err)
	}
	switch res[0] {
	case "ok":
		t.Revision, err = strconv.ParseInt(res[1], 10, 64)
		if err != nil {
			return Table{}, fmt.Errorf("%s: revision %q: %w", op, res[1], err)
		}
		return t, nil
	case "exists":
		return Table{}, fmt.Errorf("%s: %w", op, ErrConflict)
	case "missing":
		return Table{}, fmt.Errorf("%s: %w", op, ErrNotFound)
	case "stale":
		stored, _ := strconv.ParseInt(res[1], 10, 64)
		return Table{}, fmt.Errorf("%s: %w", op, staleErr(stored, expected))
	case "noconn":
		return Table{}, noConnectionErr(t)
	}
	return Table{}, fmt.Errorf("%s: unexpected script reply %q", op, res)
}

// deleteTable runs tableDeleteLua; keys are the table key, the table
// index, then the dependent keys.
func (r *Redis) deleteTable(ctx context.Context, name string, keys []string) (int, error) {
	all := append([]string{keys[0], keys[1], r.keys.tableRev(), r.keys.tableChanges()}, keys[2:]...)
	return r.tableScripts.delete.Run(ctx, r.client, all, name, redisChangeStreamLen).Int()
}

// UpdateTable replaces the table if its stored revision is still
// t.Revision (one script: compare, write, announce).
func (r *Redis) UpdateTable(ctx context.Context, t Table) (Table, error) {
	if err := checkName("table", t.Name); err != nil {
		return Table{}, fmt.Errorf("update table: %w", err)
	}
	return r.writeTable(ctx, "update table", tableCAS, t)
}

// SnapshotTables reads the revision counter, then every table. A write
// between the two reads shows in the list with a revision above the
// snapshot's, which is what TableSnapshot promises.
func (r *Redis) SnapshotTables(ctx context.Context) (TableSnapshot, error) {
	rev, err := r.client.Get(ctx, r.keys.tableRev()).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return TableSnapshot{}, redisErr("snapshot tables: read revision", err)
	}
	tables, err := r.ListTables(ctx)
	if err != nil {
		return TableSnapshot{}, fmt.Errorf("snapshot tables: %w", err)
	}
	return TableSnapshot{Revision: rev, Tables: tables}, nil
}

// Timing of the change-stream reader.
const (
	watchBlock    = time.Second           // longest XREAD BLOCK, so a cancelled reader ends soon
	watchRetryMin = 50 * time.Millisecond // first wait after a failed read
	watchRetryMax = 2 * time.Second       // longest wait between reads while Redis is away
	watchBatch    = int64(256)            // entries per XREAD
)

// WatchTables follows the change stream from revision after. While Redis
// is away it keeps retrying from the last revision it delivered, so no
// change is skipped; it closes the channel when the stream no longer
// holds the next revision (trimmed) or holds an entry it cannot read.
func (r *Redis) WatchTables(ctx context.Context, after int64) (<-chan TableChange, error) {
	ch := make(chan TableChange, 64)
	go r.followTables(ctx, after, ch)
	return ch, nil
}

func (r *Redis) followTables(ctx context.Context, cursor int64, ch chan<- TableChange) {
	defer close(ch)
	wait := watchRetryMin
	for ctx.Err() == nil {
		streams, err := r.client.XRead(ctx, &redis.XReadArgs{
			Streams: []string{r.keys.tableChanges(), strconv.FormatInt(cursor, 10) + "-0"},
			Count:   watchBatch, Block: watchBlock,
		}).Result()
		switch {
		case errors.Is(err, redis.Nil):
			continue
		case errors.Is(err, redis.ErrClosed):
			return
		case err != nil:
			if sleep.For(ctx, wait) != nil {
				return
			}
			wait = min(2*wait, watchRetryMax)
			continue
		}
		wait = watchRetryMin
		for _, s := range streams {
			for _, msg := range s.Messages {
				c, err := decodeTableChange(msg)
				if err != nil || c.Revision != cursor+1 {
					return // lost or unreadable: the reader re-reads the store
				}
				select {
				case ch <- c:
					cursor = c.Revision
				case <-ctx.Done():
					return
				}
			}
		}
	}
}

// decodeTableChange reads one change-stream entry.
func decodeTableChange(msg redis.XMessage) (TableChange, error) {
	revText, _, _ := strings.Cut(msg.ID, "-")
	rev, err := strconv.ParseInt(revText, 10, 64)
	if err != nil {
		return TableChange{}, fmt.Errorf("table change %s: %w", msg.ID, err)
	}
	name, _ := msg.Values["name"].(string)
	c := TableChange{Revision: rev, Name: name}
	raw, ok := msg.Values["table"].(string)
	if !ok {
		return c, nil // deleted
	}
	var rec tableRecord
	if err := decode(fmt.Sprintf("table change %s of table %q", msg.ID, name), []byte(raw), &rec); err != nil {
		return TableChange{}, err
	}
	c.Table = &rec.Table
	return c, nil
}

// CreateBoundTable adds a table on a stored connection: the script checks
// the connection's key in the same step (C13).
func (r *Redis) CreateBoundTable(ctx context.Context, t Table) error {
	if err := checkName("table", t.Name); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	_, err := r.writeTable(ctx, "create table", tableBound, t)
	return err
}

// DeleteConnection removes the named connection unless a table names it
// (one script: C13).
func (r *Redis) DeleteConnection(ctx context.Context, name string) error {
	op := "delete connection " + quote(name)
	keys := []string{r.keys.conn(name), r.keys.conns(), r.keys.tables()}
	res, err := r.tableScripts.connDelete.Run(ctx, r.client, keys, name, r.keys.table("")).StringSlice()
	if err != nil {
		return redisErr(op, err)
	}
	switch res[0] {
	case "ok":
		return nil
	case "missing":
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	case "inuse":
		return inUseErr(name, res[1:])
	}
	return fmt.Errorf("%s: unexpected script reply %q", op, res)
}
