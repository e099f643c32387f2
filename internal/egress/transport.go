package egress

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Transport is the http.RoundTripper in front of the HTTP transport of one
// kind of peer: it checks the request's host, dials through the policy,
// refuses redirects to another origin (E5), turns every failure to get an
// answer into the same error (E4) and cuts the peer's error answers to
// excerpts (E6). Build it with [Policy.Transport].
type Transport struct {
	kind   Kind
	policy *Policy
	base   http.RoundTripper
	scrub  func(string) string
	// full keeps error answers whole, for a client that matches on them
	// and cuts them to an excerpt in its own errors.
	full bool
}

var _ http.RoundTripper = (*Transport)(nil)

// Transport makes base dial through the policy for kind (its DialContext
// is replaced by one that dials with d) and returns it wrapped. scrub
// (may be nil) removes the secrets the transport's requests carry from
// error answers before they are cut.
func (p *Policy) Transport(kind Kind, base *http.Transport, d *net.Dialer, scrub func(string) string) *Transport {
	base.DialContext = p.DialContext(kind, d)
	return &Transport{kind: kind, policy: p, base: base, scrub: scrub}
}

// KeepErrorAnswers returns t leaving error answers whole: its client
// matches on their text and shows only [Excerpt]s of them in its errors.
func (t *Transport) KeepErrorAnswers() *Transport {
	t.full = true
	return t
}

// RoundTrip sends req under the policy.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.policy.CheckHost(t.kind, req.URL.Hostname()); err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, t.failure(req, err)
	}
	if to, ok := crossOriginRedirect(req.URL, resp); ok {
		resp.Body.Close()
		return nil, &RedirectError{Kind: t.kind, From: hostPort(req.URL), To: to}
	}
	if resp.StatusCode >= 400 && !t.full {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		short := shortenBody(raw, t.scrub)
		resp.Body = io.NopCloser(bytes.NewReader(short))
		resp.ContentLength = int64(len(short))
		resp.Header.Set("Content-Length", strconv.Itoa(len(short)))
		resp.Header.Del("Content-Encoding")
	}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the base transport.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// failure maps a transport error: the policy's refusals, a certificate
// the peer cannot prove and the caller's own cancellation keep their
// error; everything else (refused, filtered, timed out, not HTTP) is the
// one DialError (E4).
func (t *Transport) failure(req *http.Request, err error) error {
	var refused *RefusedError
	var dialErr *DialError
	switch {
	case errors.As(err, &refused), errors.As(err, &dialErr):
		return err
	case errors.Is(req.Context().Err(), context.Canceled):
		return err
	case certificateError(err):
		return err
	}
	return unreachable(req.Context(), t.kind, hostPort(req.URL))
}

// certificateError reports a TLS verification failure: the peer answered
// TLS but could not prove who it is, which the operator must see.
func certificateError(err error) bool {
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid)
}

// RedirectError is a redirect to another origin that was not followed.
type RedirectError struct {
	Kind Kind
	From string // host:port that answered
	To   string // the target, without user info or query
}

func (e *RedirectError) Error() string {
	return e.Kind.noun() + " at " + e.From + " redirected to " + e.To +
		": floe follows no redirect to another host, port or scheme (credentials stay with the host they were given for)"
}

// crossOriginRedirect returns the target of a redirect to another origin.
func crossOriginRedirect(from *url.URL, resp *http.Response) (string, bool) {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return "", false
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "", false
	}
	to, err := from.Parse(loc)
	if err != nil {
		return Excerpt(loc, nil), true
	}
	if SameOrigin(from, to) {
		return "", false
	}
	shown := url.URL{Scheme: to.Scheme, Host: to.Host, Path: to.Path}
	return Excerpt(shown.String(), nil), true
}

// SameOrigin reports whether a and b have the same scheme, host and port
// (default ports filled in).
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

// hostPort is u's host:port, the scheme's default port filled in.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// CheckURL checks the host of a URL setting before anything is dialled
// (see [Policy.CheckHost]). A URL without a host passes: the caller's own
// validation reports it.
func (p *Policy) CheckURL(kind Kind, raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return nil
	}
	return p.CheckHost(kind, u.Hostname())
}

// Client returns an HTTP client for kind over tr (see [Policy.Transport]),
// each request bounded by timeout (0: none). It is what floe gives the
// AWS SDK in place of the SDK's own client, keeping the SDK's transport
// settings (CA bundle, pools).
func (p *Policy) Client(kind Kind, tr *http.Transport, d *net.Dialer, timeout time.Duration, scrub func(string) string) *http.Client {
	return &http.Client{Transport: p.Transport(kind, tr, d, scrub), Timeout: timeout}
}
