package pinot

import (
	"net"
	"net/http"
	"time"

	"github.com/floehq/floe/internal/egress"
)

// Option configures a Controller or Broker.
type Option func(*clientOptions)

type clientOptions struct {
	egress *egress.Policy
}

// WithEgress makes the client call Pinot only at addresses p admits for
// Pinot (checked at every dial, after name resolution). Without it no
// address is refused; either way the client follows no redirect to
// another origin and gives one error for every failure to reach Pinot.
func WithEgress(p *egress.Policy) Option {
	return func(o *clientOptions) { o.egress = p }
}

// httpClient is the HTTP client of a Pinot controller or broker: each
// attempt bounded by timeout, dialled under the egress policy, error
// answers kept whole (APIError shows an excerpt, scrubbed of headers).
func httpClient(timeout time.Duration, s scrubber, opts []Option) *http.Client {
	var o clientOptions
	for _, opt := range opts {
		opt(&o)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return &http.Client{Timeout: timeout, Transport: o.egress.Transport(egress.Pinot, tr, dialer, s.scrub).KeepErrorAnswers()}
}
