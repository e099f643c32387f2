package api

import (
	"net/http"
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/internal/buildinfo"
	"github.com/floehq/floe/internal/redact"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
)

// Options are the API's access rules and limits. Zero fields take the
// defaults below; the zero Options serve an open API, which Open allows on
// loopback addresses only.
type Options struct {
	// AdminTokens may call every route; ReadTokens every GET. With none,
	// no route asks for a token.
	AdminTokens, ReadTokens []string
	// ProtectMetrics makes /metrics ask for a token (when tokens are set).
	ProtectMetrics bool
	// Metrics serves /metrics (a metrics.Registry's Handler); nil: a
	// registry of the server's own with floe_up, floe_tables and the Go
	// runtime.
	Metrics http.Handler
	// Insecure lets Open serve a non-loopback address without any token.
	Insecure bool
	// AllowedOrigins are origins (scheme://host[:port]) besides the
	// served one whose pages may send mutating requests.
	AllowedOrigins []string
	// AllowedHosts are Host names besides the listen address, localhost
	// and IP literals: exact names, "*.suffix", or "*" for any.
	AllowedHosts []string
	// HTTP limits (defaults 30s, 2m, 2m, 1 MiB).
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxBodyBytes                           int64
	// MaxCatalogCalls bounds concurrent calls that reach a catalog
	// (default 4); the rest are answered 429 with Retry-After.
	MaxCatalogCalls int
	// StoreTimeout bounds each store call (default and /healthz at most
	// HealthTimeout, so that an outage answers 503 within a second; a full
	// checkpoint read ten times as long).
	StoreTimeout time.Duration
	// StoreName names the checkpoint store in 503 answers (default
	// "checkpoint store").
	StoreName string
	// MinScheduleInterval is the shortest schedule a new table may have
	// (default watcher.DefaultMinScheduleInterval).
	MinScheduleInterval time.Duration
	// Policy limits the local files and secret references connections
	// may use; checked when a connection is stored or opened.
	Policy catalog.Policy
	// Pinot drops the Pinot table of a deleted external table when the
	// DELETE asks (dropPinotTable=true); nil refuses such deletes.
	Pinot pinot.TableDropper
	// Notifier handles POST /tables/{name}/notify and knows each table's
	// last notification (nil: the webhook answers 503).
	Notifier Notifier
	// Redactor scrubs every error the API answers and learns the secrets
	// of the connections it stores (nil: a private one).
	Redactor *redact.Redactor
	// Build is what GET /version answers (zero: only the version given to
	// New).
	Build buildinfo.Info
}

// HealthTimeout bounds the store check of /healthz, and is the default
// StoreTimeout.
const HealthTimeout = 800 * time.Millisecond

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReadTimeout, 30*time.Second)
	def(&o.WriteTimeout, 2*time.Minute)
	def(&o.IdleTimeout, 2*time.Minute)
	def(&o.StoreTimeout, HealthTimeout)
	def(&o.MinScheduleInterval, watcher.DefaultMinScheduleInterval)
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.MaxCatalogCalls <= 0 {
		o.MaxCatalogCalls = 4
	}
	if o.StoreName == "" {
		o.StoreName = "checkpoint store"
	}
	if o.Redactor == nil {
		o.Redactor = redact.New()
	}
	return o
}

// hasTokens reports whether routes ask for a token.
func (o Options) hasTokens() bool { return len(o.AdminTokens)+len(o.ReadTokens) > 0 }
