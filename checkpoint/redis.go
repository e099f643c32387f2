package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix starts every key floe writes to Redis.
const DefaultRedisPrefix = "floe:"

// RedisOptions configures NewRedis.
type RedisOptions struct {
	// URL is redis://[user:password@]host:port[/db] or rediss://... for
	// TLS; go-redis query options (dial_timeout, ...) are accepted.
	URL string
	// Prefix starts every key (default DefaultRedisPrefix).
	Prefix string
	// DialTimeout bounds connecting and the opening Ping (default 5s).
	DialTimeout time.Duration
}

// Redis is the Store shared by several floe replicas through one Redis
// server (standalone or a replicated primary; Redis Cluster is not
// supported because scripts touch keys of several slots).
type Redis struct {
	client  *redis.Client
	keys    redisKeys
	scripts redisScripts
	addr    string

	tableScripts    redisTableScripts
	overviewScripts redisOverviewScripts
	overviews       *overviewCache
}

var _ Store = (*Redis)(nil)

// NewRedis connects to the Redis at opts.URL and pings it, so a wrong URL
// or an unreachable server fails here with one line naming the address.
// Errors never contain the password.
func NewRedis(ctx context.Context, opts RedisOptions) (*Redis, error) {
	ro, err := parseRedisURL(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("open redis: %w", err)
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 5 * time.Second
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultRedisPrefix
	}
	ro.DialTimeout = opts.DialTimeout
	ro.MaxRetries = 1
	// A caller's deadline bounds every command (the API gives store calls
	// about a second); without a deadline a frozen server fails a command
	// after the read or write timeout instead of hanging.
	ro.ContextTimeoutEnabled = true
	ro.ReadTimeout, ro.WriteTimeout = 3*time.Second, 3*time.Second
	ro.PoolTimeout = 4 * time.Second
	ro.DialerRetries = 2 // a server that refuses connections is reported at once
	client := redis.NewClient(ro)
	ctx, cancel := context.WithTimeout(ctx, 2*opts.DialTimeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("open redis at %s (db %d): ping: %s", ro.Addr, ro.DB, oneLine(err))
	}
	return &Redis{client: client, keys: redisKeys{prefix: opts.Prefix}, scripts: newRedisScripts(), addr: ro.Addr,
		tableScripts: newRedisTableScripts(), overviewScripts: newRedisOverviewScripts(), overviews: &overviewCache{}}, nil
}

// parseRedisURL validates and parses raw without ever echoing it (it may
// carry a password).
func parseRedisURL(raw string) (*redis.Options, error) {
	if raw == "" {
		return nil, fmt.Errorf("%w: empty redis URL", ErrInvalid)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the whole URL
		}
		return nil, fmt.Errorf("%w: redis URL does not parse: %v", ErrInvalid, err)
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("%w: redis URL scheme %q, want redis:// or rediss://", ErrInvalid, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: redis URL has no host", ErrInvalid)
	}
	ro, err := redis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: redis URL for host %s: %s", ErrInvalid, u.Host, redactErr(err, u))
	}
	return ro, nil
}

// redactErr returns err's text with any password of u removed.
func redactErr(err error, u *url.URL) string {
	msg := oneLine(err)
	if pw, ok := u.User.Password(); ok && pw != "" {
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
	}
	return msg
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// Close closes the connection pool.
func (r *Redis) Close() error {
	if err := r.client.Close(); err != nil {
		return fmt.Errorf("close redis at %s: %w", r.addr, err)
	}
	return nil
}

// redisKeys builds every key of the layout in doc.go.
type redisKeys struct{ prefix string }

func (k redisKeys) key(kind, name string) string { return k.prefix + "v1:" + kind + ":" + name }
func (k redisKeys) conns() string                { return k.prefix + "v1:conns" }
func (k redisKeys) tables() string               { return k.prefix + "v1:tables" }
func (k redisKeys) conn(n string) string         { return k.key("conn", n) }
func (k redisKeys) table(n string) string        { return k.key("table", n) }
func (k redisKeys) checkpoint(n string) string   { return k.key("checkpoint", n) }
func (k redisKeys) files(n string) string        { return k.key("files", n) }
func (k redisKeys) runs(n string) string         { return k.key("runs", n) }
func (k redisKeys) runOrder(n string) string     { return k.key("runorder", n) }
func (k redisKeys) lease(n string) string        { return k.key("lease", n) }
func (k redisKeys) fence(n string) string        { return k.key("fence", n) }
func (k redisKeys) segTokens(n string) string    { return k.key("segtokens", n) }
func (k redisKeys) staging(n, nonce string) string {
	return k.key("staging", n) + ":" + nonce
}

// redisErr wraps err for op, mapping redis.Nil to ErrNotFound and a
// closed client to ErrClosed.
func redisErr(op string, err error) error {
	switch {
	case errors.Is(err, redis.Nil):
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	case errors.Is(err, redis.ErrClosed):
		return fmt.Errorf("%s: %w: %w", op, ErrClosed, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// PutConnection creates or replaces a connection.
func (r *Redis) PutConnection(ctx context.Context, c Connection) error {
	if err := checkName("connection", c.Name); err != nil {
		return fmt.Errorf("put connection: %w", err)
	}
	raw, err := encode("connection", connectionRecord{versioned{FormatCurrent}, c})
	if err != nil {
		return err
	}
	_, err = r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, r.keys.conn(c.Name), raw, 0)
		p.SAdd(ctx, r.keys.conns(), c.Name)
		return nil
	})
	if err != nil {
		return redisErr("put connection "+quote(c.Name), err)
	}
	return nil
}

// GetConnection returns the named connection.
func (r *Redis) GetConnection(ctx context.Context, name string) (Connection, error) {
	op := "get connection " + quote(name)
	raw, err := r.client.Get(ctx, r.keys.conn(name)).Bytes()
	if err != nil {
		return Connection{}, redisErr(op, err)
	}
	var rec connectionRecord
	if err := decode("connection "+quote(name), raw, &rec); err != nil {
		return Connection{}, fmt.Errorf("%s: %w", op, err)
	}
	return rec.Connection, nil
}

// ListConnections returns every connection sorted by name.
func (r *Redis) ListConnections(ctx context.Context) ([]Connection, error) {
	var out []Connection
	err := r.listRecords(ctx, r.keys.conns(), r.keys.conn, func(name string, raw []byte) error {
		var rec connectionRecord
		if err := decode("connection "+quote(name), raw, &rec); err != nil {
			return err
		}
		out = append(out, rec.Connection)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list connections: %w", err)
	}
	return out, nil
}

// listRecords reads the JSON records named in an index set, in name order,
// skipping names deleted between the two reads.
func (r *Redis) listRecords(ctx context.Context, index string, key func(string) string,
	fn func(name string, raw []byte) error) error {
	names, err := r.client.SMembers(ctx, index).Result()
	if err != nil {
		return redisErr("read index", err)
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = key(n)
	}
	vals, err := r.client.MGet(ctx, keys...).Result()
	if err != nil {
		return redisErr("read records", err)
	}
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if err := fn(names[i], []byte(s)); err != nil {
			return err
		}
	}
	return nil
}

// CreateTable adds a table; ErrConflict if it exists.
func (r *Redis) CreateTable(ctx context.Context, t Table) error {
	if err := checkName("table", t.Name); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	_, err := r.writeTable(ctx, "create table", tableCreate, t)
	return err
}

// PutTable creates or replaces a table.
func (r *Redis) PutTable(ctx context.Context, t Table) error {
	if err := checkName("table", t.Name); err != nil {
		return fmt.Errorf("put table: %w", err)
	}
	_, err := r.writeTable(ctx, "put table", tablePut, t)
	return err
}

// GetTable returns the named table.
func (r *Redis) GetTable(ctx context.Context, name string) (Table, error) {
	op := "get table " + quote(name)
	raw, err := r.client.Get(ctx, r.keys.table(name)).Bytes()
	if err != nil {
		return Table{}, redisErr(op, err)
	}
	var rec tableRecord
	if err := decode("table "+quote(name), raw, &rec); err != nil {
		return Table{}, fmt.Errorf("%s: %w", op, err)
	}
	return rec.Table, nil
}

// ListTables returns every table sorted by name.
func (r *Redis) ListTables(ctx context.Context) ([]Table, error) {
	var out []Table
	err := r.listRecords(ctx, r.keys.tables(), r.keys.table, func(name string, raw []byte) error {
		var rec tableRecord
		if err := decode("table "+quote(name), raw, &rec); err != nil {
			return err
		}
		out = append(out, rec.Table)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	return out, nil
}

// DeleteTable removes a table with its checkpoint, files, runs and lease
// in one script. The fencing counter stays (invariant C3).
func (r *Redis) DeleteTable(ctx context.Context, name string) error {
	op := "delete table " + quote(name)
	keys := append([]string{
		r.keys.table(name), r.keys.tables(),
		r.keys.checkpoint(name), r.keys.files(name), r.keys.runs(name), r.keys.runOrder(name), r.keys.lease(name),
		r.keys.segTokens(name), r.keys.observation(name),
	}, r.keys.index(name)...)
	n, err := r.deleteTable(ctx, name, keys)
	r.overviews.forget(name)
	if err != nil {
		return redisErr(op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}
