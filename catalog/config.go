package catalog

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/floehq/floe/internal/egress"
)

// Connection types.
const (
	TypeREST     = "rest"
	TypeS3Tables = "s3tables"
	TypeGlue     = "glue"
	TypeSQL      = "sql"
	TypeHadoop   = "hadoop"
)

// Modes for s3tables and glue connections.
const (
	ModeAuto   = "auto"
	ModeREST   = "rest"
	ModeNative = "native"
)

// Prop keys (see the package documentation for what each one does).
const (
	PropURI             = "uri"
	PropWarehouse       = "warehouse"
	PropRegion          = "region"
	PropTimeout         = "timeout"
	PropARN             = "arn"
	PropMode            = "mode"
	PropPrefix          = "prefix"
	PropScope           = "scope"
	PropOAuthURI        = "oauth2-server-uri"
	PropSigV4           = "sigv4"
	PropSigningName     = "signing-name"
	PropSigningRegion   = "signing-region"
	PropCatalogID       = "catalog-id"
	PropDialect         = "dialect"
	PropDriver          = "driver"
	PropSQLCatalogName  = "catalog-name"
	PropRoleARN         = "role-arn"
	PropExternalID      = "external-id"
	PropViaRoleARN      = "via-role-arn"
	PropViaExternalID   = "via-external-id"
	PropRoleSessionName = "role-session-name"
	PropEndpoint        = "endpoint"
	PropDataPrefix      = "data."
)

// Secret keys.
const (
	SecretAccessKeyID     = "access-key-id"
	SecretSecretAccessKey = "secret-access-key"
	SecretSessionToken    = "session-token"
	SecretCredential      = "credential"
	SecretToken           = "token"
	SecretPassword        = "password"
)

// DefaultTimeout bounds every catalog call when props hold no timeout.
const DefaultTimeout = 30 * time.Second

// Config describes one catalog connection. Props hold everything that may be
// shown; Secrets hold credentials and are never printed.
type Config struct {
	Name    string            // connection name, used in error field paths
	Type    string            // rest | s3tables | glue | sql | hadoop
	Props   map[string]string // see the package documentation
	Secrets map[string]string // access keys, session token, oauth credential/token, sql password

	// local guards the tables' reads of local files; set by
	// [Policy.Resolve], nil otherwise (no check).
	local *localGuard
	// egress decides the addresses the connection's calls may reach; set
	// by [Policy.Resolve], nil otherwise (no check).
	egress *egress.Policy
}

// prop returns a trimmed prop value.
func (c Config) prop(key string) string { return strings.TrimSpace(c.Props[key]) }

// secret returns a secret value.
func (c Config) secret(key string) string { return c.Secrets[key] }

// field names a config field for errors: connections.<name>.props.<key>.
func (c Config) field(section, key string) string {
	name := c.Name
	if name == "" {
		name = "(unnamed)"
	}
	if section == "" {
		return "connections." + name + "." + key
	}
	return "connections." + name + "." + section + "." + key
}

// timeout is the per-call timeout; Validate has checked it parses.
func (c Config) timeout() time.Duration {
	if v := c.prop(PropTimeout); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return DefaultTimeout
}

// mode returns the configured mode, or def when unset.
func (c Config) mode(def string) string {
	if m := strings.ToLower(c.prop(PropMode)); m != "" {
		return m
	}
	return def
}

// redacted is what String, LogValue and JSON show: secrets by key only.
type redacted struct {
	Name    string            `json:"name"`
	Type    string            `json:"type"`
	Props   map[string]string `json:"props,omitempty"`
	Secrets map[string]string `json:"secrets,omitempty"`
}

// redacted is c with its secrets by key only; a credential still written
// in props counts as a secret (MoveCredentials).
func (c Config) redacted() redacted {
	c, _ = c.MoveCredentials()
	r := redacted{Name: c.Name, Type: c.Type, Props: maps.Clone(c.Props)}
	if len(c.Secrets) > 0 {
		r.Secrets = make(map[string]string, len(c.Secrets))
		for k := range c.Secrets {
			r.Secrets[k] = "REDACTED"
		}
	}
	return r
}

// String shows the config with every secret value replaced by REDACTED.
func (c Config) String() string {
	r := c.redacted()
	keys := slices.Sorted(maps.Keys(r.Secrets))
	return fmt.Sprintf("catalog.Config{Name:%q Type:%q Props:%v Secrets:%v}", r.Name, r.Type, r.Props, keys)
}

// GoString keeps %#v from printing secrets.
func (c Config) GoString() string { return c.String() }

// Format keeps every fmt verb (%v, %+v, %s, %#v) on the redacted form.
func (c Config) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// LogValue logs the config with secret values redacted.
func (c Config) LogValue() slog.Value {
	r := c.redacted()
	props := make([]any, 0, len(r.Props))
	for _, k := range slices.Sorted(maps.Keys(r.Props)) {
		props = append(props, slog.String(k, r.Props[k]))
	}
	return slog.GroupValue(
		slog.String("name", r.Name),
		slog.String("type", r.Type),
		slog.Group("props", props...),
		slog.Any("secrets", slices.Sorted(maps.Keys(r.Secrets))),
	)
}

// MarshalJSON writes the config with secret values redacted. A Config is
// never meant to round-trip through JSON: the store keeps secrets itself.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.redacted()) }
