// Package config loads floe's configuration: built-in defaults, then one
// YAML file, then FLOE_* environment overrides, then validation whose errors
// name the offending field.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/floehq/floe/internal/egress"
	"github.com/floehq/floe/pinot"
)

// Config is the whole of floe's configuration.
type Config struct {
	Server      Server                `yaml:"server"`
	Store       Store                 `yaml:"store"`
	Pinot       Pinot                 `yaml:"pinot"`
	Watcher     Watcher               `yaml:"watcher"`
	Security    Security              `yaml:"security"`
	Log         Log                   `yaml:"log"`
	Connections map[string]Connection `yaml:"connections"`
	// Notifications start runs when a commit is announced (notify.go).
	Notifications Notifications `yaml:"notifications"`
}

// Server is the HTTP API listener and who may use it.
type Server struct {
	Addr string `yaml:"addr"`
	// Insecure allows a non-loopback Addr without any token.
	Insecure bool `yaml:"insecure"`
	// AdminTokens may do everything; ReadTokens only read (GET). With
	// neither, the API is open and Addr must be a loopback address.
	AdminTokens []string `yaml:"adminTokens"`
	ReadTokens  []string `yaml:"readTokens"`
	// ProtectMetrics makes /metrics ask for a token too.
	ProtectMetrics bool `yaml:"protectMetrics"`
	// AllowedOrigins are browser origins (scheme://host[:port]) besides
	// floe's own that may send mutating requests.
	AllowedOrigins []string `yaml:"allowedOrigins"`
	// AllowedHosts are Host header names besides the listen address,
	// localhost and IP literals ("*.example.com" allows a suffix, "*" any).
	AllowedHosts []string      `yaml:"allowedHosts"`
	ReadTimeout  time.Duration `yaml:"readTimeout"`
	WriteTimeout time.Duration `yaml:"writeTimeout"`
	IdleTimeout  time.Duration `yaml:"idleTimeout"`
	MaxBodyBytes int64         `yaml:"maxBodyBytes"`
	// MaxCatalogCalls bounds concurrent validate, browse, describe,
	// preview and create calls (the rest are answered 429).
	MaxCatalogCalls int `yaml:"maxCatalogCalls"`
	// StoreTimeout bounds each checkpoint store call the API makes
	// (default 800ms, so an outage answers 503 within a second).
	StoreTimeout time.Duration `yaml:"storeTimeout"`
}

// Security limits what connections may reach: on floe's own machine and
// on the network.
type Security struct {
	// LocalRoots: directories under which sqlite catalogs and file://
	// Hadoop warehouses may lie (none by default).
	LocalRoots []string `yaml:"localRoots"`
	// SecretEnv: variables ${env:NAME} secrets may read ("PREFIX_*" allowed).
	SecretEnv []string `yaml:"secretEnv"`
	// SecretFileRoots: directories ${file:/path} secrets may read from.
	SecretFileRoots []string `yaml:"secretFileRoots"`
	// Egress: the addresses each kind of peer may be called at (package
	// egress); by default public addresses only.
	Egress egress.Config `yaml:"egress"`
}

// Store says where checkpoints live: Redis when Redis.URL is set, else the
// embedded single-node store at Path.
type Store struct {
	Redis RedisStore `yaml:"redis"`
	Path  string     `yaml:"path"`
}

// RedisStore configures the Redis checkpoint store.
type RedisStore struct {
	URL       string `yaml:"url"`
	KeyPrefix string `yaml:"keyPrefix"`
}

// Pinot says where segments go: a controller when ControllerURL is set
// (tar push, or metadata push through DeepStore), else a local directory
// (SegmentDir) that holds the tarballs.
type Pinot struct {
	ControllerURL string            `yaml:"controllerURL"`
	BrokerURL     string            `yaml:"brokerURL"`
	SegmentDir    string            `yaml:"segmentDir"`
	Headers       map[string]string `yaml:"headers"` // e.g. Authorization; never logged
	Timeout       time.Duration     `yaml:"timeout"` // per request attempt
	Retry         Retry             `yaml:"retry"`
	DeepStore     DeepStore         `yaml:"deepStore"`
}

// Watcher tunes the sync worker.
type Watcher struct {
	DefaultSchedule   string        `yaml:"defaultSchedule"`
	MaxConcurrentRuns int           `yaml:"maxConcurrentRuns"`
	BuildParallelism  int           `yaml:"buildParallelism"`
	LeaseTTL          time.Duration `yaml:"leaseTTL"`
	RefreshInterval   time.Duration `yaml:"refreshInterval"`
	Owner             string        `yaml:"owner"`
	WorkDir           string        `yaml:"workDir"`
	MaxRowsPerSegment int64         `yaml:"maxRowsPerSegment"`
	// LeaseMargin is how much certain lease a change to Pinot needs left
	// (0: a third of LeaseTTL).
	LeaseMargin time.Duration `yaml:"leaseMargin"`
	// BatchFiles and BatchBytes cut runs that add files into batches that
	// are built, pushed and committed in turn.
	BatchFiles int   `yaml:"batchFiles"`
	BatchBytes int64 `yaml:"batchBytes"`
	// ShareBuilds lets every replica build the units of a large run (needs
	// the Redis store); ClaimTimeout is how long a unit may go without its
	// builder's heartbeat before another replica takes it.
	ShareBuilds  bool          `yaml:"shareBuilds"`
	ClaimTimeout time.Duration `yaml:"claimTimeout"`
	// CoalesceBelowBytes: data files smaller than this are coalesced per
	// partition into segments of up to TargetSegmentBytes (0: never).
	CoalesceBelowBytes int64 `yaml:"coalesceBelowBytes"`
	TargetSegmentBytes int64 `yaml:"targetSegmentBytes"`
	// MergeSmallUnits: when a partition holds this many segments of
	// about one size built from small files in earlier runs, a run merges
	// them (0: never).
	MergeSmallUnits int `yaml:"mergeSmallUnits"`
	// ManifestCacheBytes bounds the in-process cache of Iceberg manifests.
	ManifestCacheBytes int64 `yaml:"manifestCacheBytes"`
	// DeleteCacheBytes bounds the decoded delete files a replica keeps for
	// its builds, so each is read once however many data files it applies
	// to; a file over a quarter of it is read for each build and not kept.
	DeleteCacheBytes int64 `yaml:"deleteCacheBytes"`
	// MinScheduleInterval: the API refuses schedules that fire more often.
	MinScheduleInterval time.Duration `yaml:"minScheduleInterval"`
	// LagInterval: how often each table's lag is measured (its metadata
	// file only), whatever its schedule; negative: only when it runs.
	LagInterval time.Duration `yaml:"lagInterval"`
	// DrainGrace is how long a run in flight may go on after SIGTERM
	// before it is stopped at a safe point (keep it below the
	// orchestrator's own grace: Kubernetes kills after 30 s by default).
	DrainGrace time.Duration `yaml:"drainGrace"`
}

// Log configures slog.
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"` // text or json
}

// Connection is a catalog connection declared in the file. Secrets hold
// credentials and are never printed.
type Connection struct {
	Type    string            `yaml:"type"`
	Props   map[string]string `yaml:"props"`
	Secrets map[string]string `yaml:"secrets"`
	// Notifications is an SQS queue of this connection's commits.
	Notifications *NotifyQueue `yaml:"notifications"`
}

// Default returns the built-in defaults: everything local, nothing needed.
func Default() Config {
	host, _ := os.Hostname()
	if host == "" {
		host = "floe"
	}
	return Config{
		Server: Server{Addr: "127.0.0.1:8080", ReadTimeout: 30 * time.Second, WriteTimeout: 2 * time.Minute,
			IdleTimeout: 2 * time.Minute, MaxBodyBytes: 1 << 20, MaxCatalogCalls: 4, StoreTimeout: 800 * time.Millisecond},
		Store: Store{Path: "floe-data/floe.db", Redis: RedisStore{KeyPrefix: "floe:"}},
		Pinot: Pinot{SegmentDir: "floe-data/segments", Timeout: 60 * time.Second, Retry: pinot.DefaultRetryPolicy()},
		Watcher: Watcher{
			DefaultSchedule:     "*/5 * * * *",
			MaxConcurrentRuns:   4,
			BuildParallelism:    2,
			LeaseTTL:            2 * time.Minute,
			RefreshInterval:     15 * time.Second,
			LagInterval:         30 * time.Second,
			Owner:               host,
			WorkDir:             "floe-data/work",
			MaxRowsPerSegment:   5_000_000,
			BatchFiles:          64,
			BatchBytes:          8 << 30,
			ShareBuilds:         true,
			ClaimTimeout:        30 * time.Second,
			CoalesceBelowBytes:  16 << 20,
			TargetSegmentBytes:  256 << 20,
			MergeSmallUnits:     8,
			ManifestCacheBytes:  256 << 20,
			DeleteCacheBytes:    64 << 20,
			MinScheduleInterval: 10 * time.Second,
			DrainGrace:          20 * time.Second,
		},
		Log:           Log{Level: "info", Format: "text"},
		Notifications: defaultNotifications(),
	}
}

// FieldError is a validation error that names the field.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid configuration")

// Load returns the defaults overlaid with the YAML file at path (skipped
// when path is empty) and the FLOE_* variables in env, validated.
func Load(path string, env []string) (Config, error) {
	cfg, err := LoadUnvalidated(path, env)
	if err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// LoadUnvalidated is Load without the final Validate, for a caller that
// fills settings of its own before it validates (floe demo's paths and
// -addr).
func LoadUnvalidated(path string, env []string) (Config, error) {
	cfg := Default()
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("read config %s: %w", path, err)
		}
		expanded := os.Expand(string(raw), lookupFunc(env))
		dec := yaml.NewDecoder(bytes.NewReader([]byte(expanded)))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return cfg, fmt.Errorf("%w: parse config %s: %s", ErrInvalid, path, namedYAMLError(expanded, err))
		}
	}
	if err := applyEnv(&cfg, env); err != nil {
		return cfg, err
	}
	if err := cfg.resolveTokens(env); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// lookupFunc expands ${VAR} from env. ${env:NAME} and ${file:/path} stay
// as written: they are secret references, read when used.
func lookupFunc(env []string) func(string) string {
	return func(k string) string {
		if strings.HasPrefix(k, "env:") || strings.HasPrefix(k, "file:") {
			return "${" + k + "}"
		}
		for _, kv := range env {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
}

// Validate checks every field and returns the first problem, naming it.
func (c *Config) Validate() error {
	checks := []func() *FieldError{
		func() *FieldError { return checkHostPort("server.addr", c.Server.Addr) },
		func() *FieldError { return checkURL("store.redis.url", c.Store.Redis.URL, "redis", "rediss") },
		func() *FieldError {
			if c.Store.Redis.URL == "" && c.Store.Path == "" {
				return &FieldError{"store.path", "must be set when store.redis.url is empty"}
			}
			return nil
		},
		c.validatePinot,
		func() *FieldError { return positive("watcher.maxConcurrentRuns", int64(c.Watcher.MaxConcurrentRuns)) },
		func() *FieldError { return positive("watcher.buildParallelism", int64(c.Watcher.BuildParallelism)) },
		func() *FieldError { return positive("watcher.leaseTTL", int64(c.Watcher.LeaseTTL)) },
		func() *FieldError { return positive("watcher.refreshInterval", int64(c.Watcher.RefreshInterval)) },
		func() *FieldError { return positive("watcher.maxRowsPerSegment", c.Watcher.MaxRowsPerSegment) },
		c.validateRunModel,
		func() *FieldError {
			return positive("watcher.minScheduleInterval", int64(c.Watcher.MinScheduleInterval))
		},
		c.validateServer,
		c.validateSecurity,
		c.validateEgress,
		func() *FieldError {
			if c.Watcher.Owner == "" {
				return &FieldError{"watcher.owner", "must not be empty"}
			}
			return nil
		},
		func() *FieldError { return oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error") },
		func() *FieldError { return oneOf("log.format", c.Log.Format, "text", "json") },
		c.validateConnections,
		c.validateNotifications,
	}
	for _, check := range checks {
		if fe := check(); fe != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, fe)
		}
	}
	return nil
}

// validateRunModel checks the batch, lease-margin and planning settings.
func (c *Config) validateRunModel() *FieldError {
	w := c.Watcher
	checks := []*FieldError{
		positive("watcher.batchFiles", int64(w.BatchFiles)),
		positive("watcher.batchBytes", w.BatchBytes),
		positive("watcher.claimTimeout", int64(w.ClaimTimeout)),
		positive("watcher.targetSegmentBytes", w.TargetSegmentBytes),
		positive("watcher.manifestCacheBytes", w.ManifestCacheBytes),
		positive("watcher.deleteCacheBytes", w.DeleteCacheBytes),
	}
	for _, fe := range checks {
		if fe != nil {
			return fe
		}
	}
	if w.DrainGrace < 0 {
		return &FieldError{"watcher.drainGrace", "must be at least 0"}
	}
	if w.LeaseMargin < 0 || w.LeaseMargin >= w.LeaseTTL/2 {
		return &FieldError{"watcher.leaseMargin", fmt.Sprintf("must be at least 0 and less than half of watcher.leaseTTL (%s)", w.LeaseTTL)}
	}
	if w.CoalesceBelowBytes < 0 || w.CoalesceBelowBytes > w.TargetSegmentBytes {
		return &FieldError{"watcher.coalesceBelowBytes", "must be between 0 and watcher.targetSegmentBytes"}
	}
	if w.MergeSmallUnits < 0 || w.MergeSmallUnits == 1 {
		return &FieldError{"watcher.mergeSmallUnits", "must be 0 (never merge) or at least 2"}
	}
	return nil
}

func (c *Config) validateConnections() *FieldError {
	for name, conn := range c.Connections {
		if name == "" || strings.ContainsAny(name, " /") {
			return &FieldError{"connections." + name, "name must be non-empty without spaces or slashes"}
		}
		if conn.Type == "" {
			return &FieldError{"connections." + name + ".type", "must be set (rest, s3tables, glue, sql or hadoop)"}
		}
	}
	return nil
}

func checkHostPort(field, v string) *FieldError {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return &FieldError{field, fmt.Sprintf("want host:port, got %q", v)}
	}
	return nil
}

// checkURL validates an optional URL. The value is never echoed back in
// full: it may carry a password.
func checkURL(field, v string, schemes ...string) *FieldError {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil {
		return &FieldError{field, "invalid URL (not parseable)"}
	}
	for _, s := range schemes {
		if u.Scheme == s {
			if u.Host == "" {
				return &FieldError{field, "invalid URL: no host"}
			}
			return nil
		}
	}
	return &FieldError{field, fmt.Sprintf("invalid URL: scheme %q, want one of %s", u.Scheme, strings.Join(schemes, ", "))}
}

func positive(field string, v int64) *FieldError {
	if v <= 0 {
		return &FieldError{field, "must be positive"}
	}
	return nil
}

func oneOf(field, v string, allowed ...string) *FieldError {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return &FieldError{field, fmt.Sprintf("got %q, want one of %s", v, strings.Join(allowed, ", "))}
}

// namedYAMLError turns a YAML decoding error into one line that names the
// field of each problem ("watcher.leaseTTL (line 3): cannot unmarshal ...").
func namedYAMLError(doc string, err error) string {
	var root yaml.Node
	_ = yaml.Unmarshal([]byte(doc), &root)
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return strings.Join(strings.Fields(err.Error()), " ")
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		var line int
		rest := e
		if _, scanErr := fmt.Sscanf(e, "line %d:", &line); scanErr == nil {
			_, rest, _ = strings.Cut(e, ": ")
		}
		if field := fieldAtLine(&root, "", line); field != "" {
			msgs = append(msgs, fmt.Sprintf("%s (line %d): %s", field, line, rest))
			continue
		}
		msgs = append(msgs, e)
	}
	return strings.Join(msgs, "; ")
}

// fieldAtLine returns the dotted path of the mapping key or value on line.
func fieldAtLine(n *yaml.Node, prefix string, line int) string {
	if n == nil || line == 0 {
		return ""
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			path := key.Value
			if prefix != "" {
				path = prefix + "." + key.Value
			}
			if key.Line == line || val.Line == line && val.Kind == yaml.ScalarNode {
				return path
			}
			if found := fieldAtLine(val, path, line); found != "" {
				return found
			}
		}
		return ""
	}
	for _, c := range n.Content {
		if found := fieldAtLine(c, prefix, line); found != "" {
			return found
		}
	}
	return ""
}
