package catalog

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/floehq/floe/internal/egress"
)

// urlProps returns the props of cfg that name an address floe calls, each
// with the kind of peer it is: the REST catalog, its OAuth token endpoint,
// the AWS endpoints and the S3 FileIO's endpoint and proxy.
func (c Config) urlProps() map[string]egress.Kind {
	out := map[string]egress.Kind{}
	if c.Type == TypeREST {
		out[PropURI] = egress.Catalog
		out[PropOAuthURI] = egress.OAuth
	}
	for k := range c.Props {
		if k == PropEndpoint || strings.HasPrefix(k, PropEndpoint+".") || k == "s3.endpoint" || k == "s3.proxy-uri" {
			out[k] = egress.AWS
		}
	}
	return out
}

// checkEgress checks the address literals of cfg's URL props against p
// (metadata, link-local, loopback and private addresses; see package
// egress), naming the prop of each refusal.
func checkEgress(p *egress.Policy, cfg Config) error {
	var errs []error
	props := cfg.urlProps()
	for _, k := range slices.Sorted(maps.Keys(props)) {
		v := cfg.prop(k)
		if v == "" {
			continue
		}
		if err := p.CheckURL(props[k], v); err != nil {
			errs = append(errs, &FieldError{Field: cfg.field("props", k), Msg: err.Error()})
		}
	}
	return errors.Join(errs...)
}

// egressPolicy is the policy the connection's calls go out under: the one
// Policy.Resolve gave it, or none (a Config opened without Resolve, as
// tests and tools do).
func (c Config) egressPolicy() *egress.Policy { return c.egress }

// dialer is the connection's dialer, bounded by its transport timeout.
func (c Config) dialer() *net.Dialer { return &net.Dialer{Timeout: c.transportTimeout()} }

// transportTimeout bounds a dial and the wait for an answer's headers:
// three quarters of the call's timeout, so a peer that does not answer
// ends in the transport's one "cannot reach" error (egress E4), not in a
// context deadline that would tell a silent port from a closed one. The
// quarter left is the margin a busy machine needs between the two (a
// tenth was too little under load: the AWS SDK then reported the call's
// deadline).
func (c Config) transportTimeout() time.Duration { return c.timeout() * 3 / 4 }

// scrubber removes the connection's secrets, in the forms its requests
// carry them (as given, URL-encoded, and URL user info as Basic
// credentials), from a peer's error answer before it is cut to an excerpt.
func (c Config) scrubber() func(string) string {
	var pairs []string
	add := func(v string) {
		if len(v) >= 4 {
			pairs = append(pairs, v, "REDACTED")
			if q := url.QueryEscape(v); q != v {
				pairs = append(pairs, q, "REDACTED")
			}
		}
	}
	for _, v := range c.SecretValues() {
		add(v)
		if _, secret, ok := strings.Cut(v, ":"); ok {
			add(secret)
		}
	}
	for _, v := range c.Props {
		if u, err := url.Parse(v); err == nil && u.User != nil {
			add(base64.StdEncoding.EncodeToString([]byte(u.User.String())))
		}
	}
	r := strings.NewReplacer(pairs...)
	return r.Replace
}

// restTransport carries a REST connection's requests: those for the OAuth
// token endpoint under the oauth rules, the rest under the catalog rules,
// and only to the origins the connection's props name, or to hosts
// security.egress lists for catalogs. A catalog's config answer can move
// the catalog elsewhere (overrides.uri) or name another token endpoint;
// the bearer token and client credential do not follow it there.
type restTransport struct {
	catalog, oauth http.RoundTripper
	tokenURL       *url.URL   // the configured OAuth token endpoint, or nil
	homes          []*url.URL // origins the connection's props name
	policy         *egress.Policy
}

// restTransport builds the transport of a REST connection to the
// catalog at uri (its uri prop, or the endpoint floe derived for S3 Tables
// or Glue).
func (c Config) restTransport(uri string) *restTransport {
	p := c.egressPolicy()
	base := func() *http.Transport {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		c.boundTransport(tr)
		return tr
	}
	t := &restTransport{
		catalog: p.Transport(egress.Catalog, base(), c.dialer(), c.scrubber()),
		oauth:   p.Transport(egress.OAuth, base(), c.dialer(), c.scrubber()),
		policy:  p,
	}
	if u, err := url.Parse(uri); err == nil && u.Host != "" {
		t.homes = append(t.homes, u)
	}
	if u, err := url.Parse(c.prop(PropOAuthURI)); err == nil && u.Host != "" {
		t.homes = append(t.homes, u)
		t.tokenURL = u
	}
	return t
}

func (t *restTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.home(req.URL) && !t.policy.Lists(egress.Catalog, req.URL.Hostname()) {
		if req.Body != nil {
			req.Body.Close()
		}
		shown := url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host}
		return nil, fmt.Errorf("send request to %s: %w: the catalog sent floe to a host its connection does not name "+
			"(a uri or token endpoint in its config answer); floe sends the connection's credentials only to the hosts of "+
			"its props or of security.egress.catalog.allow", shown.String(), egress.ErrRefused)
	}
	if t.tokenURL != nil && egress.SameOrigin(req.URL, t.tokenURL) && req.URL.Path == t.tokenURL.Path {
		return t.oauth.RoundTrip(req)
	}
	return t.catalog.RoundTrip(req)
}

// CloseIdleConnections closes both transports' idle connections.
func (t *restTransport) CloseIdleConnections() {
	for _, rt := range []http.RoundTripper{t.catalog, t.oauth} {
		if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
	}
}

// home reports whether u is on an origin the connection names.
func (t *restTransport) home(u *url.URL) bool {
	for _, h := range t.homes {
		if egress.SameOrigin(h, u) {
			return true
		}
	}
	return false
}
