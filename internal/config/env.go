package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// envVar binds one FLOE_* variable to a config field.
type envVar struct {
	name  string
	field string
	set   func(c *Config, v string) error
}

func str(dst func(c *Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *dst(c) = v; return nil }
}

func dur(dst func(c *Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		*dst(c) = d
		return nil
	}
}

func num(dst func(c *Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		*dst(c) = n
		return nil
	}
}

func num64(dst func(c *Config) *int64) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return err
		}
		*dst(c) = n
		return nil
	}
}

// list reads a comma-separated list (empty items dropped).
func list(dst func(c *Config) *[]string) func(*Config, string) error {
	return func(c *Config, v string) error {
		var out []string
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
		*dst(c) = out
		return nil
	}
}

// APITokenEnv is the variable from which floe's commands that call a
// running floe's API (aws-policy -server, ...) take their bearer token; it
// configures nothing, so applyEnv lets it pass.
const APITokenEnv = "FLOE_API_TOKEN"

// AddrEnv and TokenEnv are the address and bearer token of the running
// floe the command-line client (floe tables, status, trigger, ...) talks
// to; like APITokenEnv they configure nothing, so applyEnv lets them pass.
const (
	AddrEnv  = "FLOE_ADDR"
	TokenEnv = "FLOE_TOKEN"
)

// envVars lists every supported override. The variable name is the field
// path upper-cased with dots turned into underscores, prefixed FLOE_.
func envVars() []envVar {
	return append([]envVar{
		{"FLOE_SERVER_ADDR", "server.addr", str(func(c *Config) *string { return &c.Server.Addr })},
		{"FLOE_SERVER_INSECURE", "server.insecure", boolean(func(c *Config) *bool { return &c.Server.Insecure })},
		{"FLOE_SERVER_ADMINTOKENS", "server.adminTokens", list(func(c *Config) *[]string { return &c.Server.AdminTokens })},
		{"FLOE_SERVER_READTOKENS", "server.readTokens", list(func(c *Config) *[]string { return &c.Server.ReadTokens })},
		{"FLOE_SERVER_PROTECTMETRICS", "server.protectMetrics", boolean(func(c *Config) *bool { return &c.Server.ProtectMetrics })},
		{"FLOE_SERVER_ALLOWEDORIGINS", "server.allowedOrigins", list(func(c *Config) *[]string { return &c.Server.AllowedOrigins })},
		{"FLOE_SERVER_ALLOWEDHOSTS", "server.allowedHosts", list(func(c *Config) *[]string { return &c.Server.AllowedHosts })},
		{"FLOE_SERVER_READTIMEOUT", "server.readTimeout", dur(func(c *Config) *time.Duration { return &c.Server.ReadTimeout })},
		{"FLOE_SERVER_WRITETIMEOUT", "server.writeTimeout", dur(func(c *Config) *time.Duration { return &c.Server.WriteTimeout })},
		{"FLOE_SERVER_IDLETIMEOUT", "server.idleTimeout", dur(func(c *Config) *time.Duration { return &c.Server.IdleTimeout })},
		{"FLOE_SERVER_MAXBODYBYTES", "server.maxBodyBytes", num64(func(c *Config) *int64 { return &c.Server.MaxBodyBytes })},
		{"FLOE_SERVER_MAXCATALOGCALLS", "server.maxCatalogCalls", num(func(c *Config) *int { return &c.Server.MaxCatalogCalls })},
		{"FLOE_SERVER_STORETIMEOUT", "server.storeTimeout", dur(func(c *Config) *time.Duration { return &c.Server.StoreTimeout })},
		{"FLOE_SECURITY_LOCALROOTS", "security.localRoots", list(func(c *Config) *[]string { return &c.Security.LocalRoots })},
		{"FLOE_SECURITY_SECRETENV", "security.secretEnv", list(func(c *Config) *[]string { return &c.Security.SecretEnv })},
		{"FLOE_SECURITY_SECRETFILEROOTS", "security.secretFileRoots", list(func(c *Config) *[]string { return &c.Security.SecretFileRoots })},
		{"FLOE_STORE_REDIS_URL", "store.redis.url", str(func(c *Config) *string { return &c.Store.Redis.URL })},
		{"FLOE_STORE_REDIS_KEYPREFIX", "store.redis.keyPrefix", str(func(c *Config) *string { return &c.Store.Redis.KeyPrefix })},
		{"FLOE_STORE_PATH", "store.path", str(func(c *Config) *string { return &c.Store.Path })},
		{"FLOE_PINOT_CONTROLLERURL", "pinot.controllerURL", str(func(c *Config) *string { return &c.Pinot.ControllerURL })},
		{"FLOE_PINOT_BROKERURL", "pinot.brokerURL", str(func(c *Config) *string { return &c.Pinot.BrokerURL })},
		{"FLOE_PINOT_SEGMENTDIR", "pinot.segmentDir", str(func(c *Config) *string { return &c.Pinot.SegmentDir })},
		{"FLOE_PINOT_TIMEOUT", "pinot.timeout", dur(func(c *Config) *time.Duration { return &c.Pinot.Timeout })},
		{"FLOE_PINOT_RETRY_ATTEMPTS", "pinot.retry.attempts", num(func(c *Config) *int { return &c.Pinot.Retry.Attempts })},
		{"FLOE_PINOT_RETRY_MAXELAPSED", "pinot.retry.maxElapsed", dur(func(c *Config) *time.Duration { return &c.Pinot.Retry.MaxElapsed })},
		{"FLOE_PINOT_DEEPSTORE_URI", "pinot.deepStore.uri", str(func(c *Config) *string { return &c.Pinot.DeepStore.URI })},
		{"FLOE_PINOT_DEEPSTORE_REGION", "pinot.deepStore.region", str(func(c *Config) *string { return &c.Pinot.DeepStore.Region })},
		{"FLOE_PINOT_DEEPSTORE_ENDPOINT", "pinot.deepStore.endpoint", str(func(c *Config) *string { return &c.Pinot.DeepStore.Endpoint })},
		{"FLOE_PINOT_DEEPSTORE_PATHSTYLE", "pinot.deepStore.pathStyle", boolean(func(c *Config) *bool { return &c.Pinot.DeepStore.PathStyle })},
		{"FLOE_WATCHER_DEFAULTSCHEDULE", "watcher.defaultSchedule", str(func(c *Config) *string { return &c.Watcher.DefaultSchedule })},
		{"FLOE_WATCHER_MAXCONCURRENTRUNS", "watcher.maxConcurrentRuns", num(func(c *Config) *int { return &c.Watcher.MaxConcurrentRuns })},
		{"FLOE_WATCHER_BUILDPARALLELISM", "watcher.buildParallelism", num(func(c *Config) *int { return &c.Watcher.BuildParallelism })},
		{"FLOE_WATCHER_LEASETTL", "watcher.leaseTTL", dur(func(c *Config) *time.Duration { return &c.Watcher.LeaseTTL })},
		{"FLOE_WATCHER_REFRESHINTERVAL", "watcher.refreshInterval", dur(func(c *Config) *time.Duration { return &c.Watcher.RefreshInterval })},
		{"FLOE_WATCHER_LAGINTERVAL", "watcher.lagInterval", dur(func(c *Config) *time.Duration { return &c.Watcher.LagInterval })},
		{"FLOE_WATCHER_OWNER", "watcher.owner", str(func(c *Config) *string { return &c.Watcher.Owner })},
		{"FLOE_WATCHER_WORKDIR", "watcher.workDir", str(func(c *Config) *string { return &c.Watcher.WorkDir })},
		{"FLOE_WATCHER_LEASEMARGIN", "watcher.leaseMargin", dur(func(c *Config) *time.Duration { return &c.Watcher.LeaseMargin })},
		{"FLOE_WATCHER_BATCHFILES", "watcher.batchFiles", num(func(c *Config) *int { return &c.Watcher.BatchFiles })},
		{"FLOE_WATCHER_BATCHBYTES", "watcher.batchBytes", num64(func(c *Config) *int64 { return &c.Watcher.BatchBytes })},
		{"FLOE_WATCHER_SHAREBUILDS", "watcher.shareBuilds", boolean(func(c *Config) *bool { return &c.Watcher.ShareBuilds })},
		{"FLOE_WATCHER_CLAIMTIMEOUT", "watcher.claimTimeout", dur(func(c *Config) *time.Duration { return &c.Watcher.ClaimTimeout })},
		{"FLOE_WATCHER_DRAINGRACE", "watcher.drainGrace", dur(func(c *Config) *time.Duration { return &c.Watcher.DrainGrace })},
		{"FLOE_WATCHER_MINSCHEDULEINTERVAL", "watcher.minScheduleInterval", dur(func(c *Config) *time.Duration { return &c.Watcher.MinScheduleInterval })},
		{"FLOE_LOG_LEVEL", "log.level", str(func(c *Config) *string { return &c.Log.Level })},
		{"LOG_LEVEL", "log.level", str(func(c *Config) *string { return &c.Log.Level })},
		{"FLOE_LOG_FORMAT", "log.format", str(func(c *Config) *string { return &c.Log.Format })},
	}, egressEnv()...)
}

// applyEnv applies the FLOE_* overrides found in env (KEY=VALUE pairs).
// An unknown FLOE_ variable is an error: a typo must not pass silently.
func applyEnv(c *Config, env []string) error {
	known := map[string]envVar{}
	for _, v := range envVars() {
		known[v.name] = v
	}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		v, isKnown := known[name]
		if !isKnown {
			if strings.HasPrefix(name, "FLOE_") && !clientEnv(name) {
				return fmt.Errorf("%w: %w", ErrInvalid, &FieldError{name, "unknown environment variable"})
			}
			continue
		}
		if err := v.set(c, val); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, &FieldError{v.field + " (from " + name + ")", err.Error()})
		}
	}
	return nil
}

// clientEnv reports whether name is a FLOE_ variable that configures no
// setting: the config file's path and the command-line client's.
func clientEnv(name string) bool {
	return name == "FLOE_CONFIG" || name == APITokenEnv || name == AddrEnv || name == TokenEnv
}
