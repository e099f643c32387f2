package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
)

// The checks every request passes, in order: Host (421), Origin on
// mutating requests (403), token (401, or 403 for a read token on an admin
// route), Content-Type on mutating requests (415), then the catalog-call
// limit (429). They apply with and without tokens.

// checkHost refuses a Host header that is not the listen address,
// localhost, an IP literal or an allowed name: a page whose DNS name was
// rebound to floe's address sends its own name and is refused (421).
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			s.refuse(w, r, http.StatusMisdirectedRequest, fmt.Sprintf(
				"host %q is not served here; use the listen address or localhost, or add it to server.allowedHosts", r.Host))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "" {
		return false
	}
	if host == "localhost" || net.ParseIP(host) != nil {
		return true
	}
	if s.ln != nil {
		if h, _, err := net.SplitHostPort(s.ln.Addr().String()); err == nil && strings.EqualFold(h, host) {
			return true
		}
	}
	for _, a := range s.opts.AllowedHosts {
		a = strings.ToLower(a)
		switch {
		case a == "*", a == host:
			return true
		case strings.HasPrefix(a, "*.") && strings.HasSuffix(host, a[1:]):
			return true
		}
	}
	return false
}

// checkOrigin refuses a mutating request a browser sends from another
// origin (Origin or Sec-Fetch-Site), unless the origin is allowed (403).
// Requests without those headers (curl, the CLI) pass.
func (s *Server) checkOrigin(next http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	for _, o := range s.opts.AllowedOrigins {
		if err := p.AddTrustedOrigin(o); err != nil {
			s.log.Error("ignoring allowed origin", slog.String("origin", o), slog.String("error", err.Error()))
		}
	}
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.refuse(w, r, http.StatusForbidden, fmt.Sprintf(
			"cross-origin request refused: origin %q may not change floe; add it to server.allowedOrigins if it should",
			r.Header.Get("Origin")))
	}))
	return p.Handler(next)
}

// guard applies a route's access level, content type and call limit.
func (s *Server) guard(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorize(w, r, rt.access) {
			return
		}
		if mutating(r.Method) && !isJSON(r.Header.Get("Content-Type")) {
			s.refuse(w, r, http.StatusUnsupportedMediaType, fmt.Sprintf(
				"Content-Type %q: %s needs Content-Type: application/json", r.Header.Get("Content-Type"), r.Method))
			return
		}
		if r.ContentLength > s.opts.MaxBodyBytes {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf(
				"request body of %d bytes is larger than %d (server.maxBodyBytes)", r.ContentLength, s.opts.MaxBodyBytes))
			return
		}
		if rt.catalog {
			select {
			case s.calls <- struct{}{}:
				defer func() { <-s.calls }()
			default:
				w.Header().Set("Retry-After", "1")
				s.refuse(w, r, http.StatusTooManyRequests, fmt.Sprintf(
					"%d catalog calls are in flight (server.maxCatalogCalls); retry later", cap(s.calls)))
				return
			}
		}
		rt.handler(w, r)
	})
}

func mutating(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// authorize checks the bearer token against the route's access level and
// answers 401 or 403 when it falls short. The token is never logged.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, need access) bool {
	if need == open || s.tokens.empty() {
		return true
	}
	tok, ok := bearer(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="floe"`)
		s.refuse(w, r, http.StatusUnauthorized, "authentication required: send Authorization: Bearer <token>")
		return false
	}
	got := s.tokens.match(tok)
	switch {
	case got == open:
		w.Header().Set("WWW-Authenticate", `Bearer realm="floe", error="invalid_token"`)
		s.refuse(w, r, http.StatusUnauthorized, "the token is not valid")
		return false
	case got < need:
		s.refuse(w, r, http.StatusForbidden, fmt.Sprintf("this token may only read; %s %s needs an admin token", r.Method, r.URL.Path))
		return false
	}
	return true
}

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// refuse answers a request the checks turned away and logs why at debug
// level (never a header value).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.log.Debug("api request refused", slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.String("remote", r.RemoteAddr))
	writeJSON(w, status, apiError{Error: s.red.Scrub(msg)})
}

// tokenSet holds the SHA-256 of each token with its access level; match
// compares against every one in constant time.
type tokenSet struct {
	sums   [][sha256.Size]byte
	levels []access
}

func newTokenSet(adminTokens, readTokens []string) tokenSet {
	var ts tokenSet
	for _, l := range []struct {
		toks  []string
		level access
	}{{adminTokens, admin}, {readTokens, read}} {
		for _, t := range l.toks {
			ts.sums = append(ts.sums, sha256.Sum256([]byte(t)))
			ts.levels = append(ts.levels, l.level)
		}
	}
	return ts
}

func (ts tokenSet) empty() bool { return len(ts.sums) == 0 }

// match returns the access a token grants (open: none). Every stored
// token is compared, so the time taken does not depend on which matched.
func (ts tokenSet) match(tok string) access {
	sum := sha256.Sum256([]byte(tok))
	got := open
	for i, s := range ts.sums {
		if subtle.ConstantTimeCompare(sum[:], s[:]) == 1 && ts.levels[i] > got {
			got = ts.levels[i]
		}
	}
	return got
}
