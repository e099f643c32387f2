package config

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/internal/egress"
)

// MinTokenLen is the shortest API token accepted.
const MinTokenLen = 16

// HasTokens reports whether the API asks for a token.
func (s Server) HasTokens() bool { return len(s.AdminTokens)+len(s.ReadTokens) > 0 }

// resolveTokens reads API tokens written as ${env:NAME} or ${file:/path}.
// A token is never echoed in an error.
func (c *Config) resolveTokens(env []string) error {
	lookup := lookupFunc(env)
	for _, list := range []struct {
		field string
		toks  []string
	}{{"server.adminTokens", c.Server.AdminTokens}, {"server.readTokens", c.Server.ReadTokens}} {
		for i, tok := range list.toks {
			field := fmt.Sprintf("%s[%d]", list.field, i)
			switch {
			case strings.HasPrefix(tok, "${env:") && strings.HasSuffix(tok, "}"):
				name := tok[len("${env:") : len(tok)-1]
				if list.toks[i] = lookup(name); list.toks[i] == "" {
					return fmt.Errorf("%w: %w", ErrInvalid, &FieldError{field, tok + ": " + name + " is not set"})
				}
			case strings.HasPrefix(tok, "${file:") && strings.HasSuffix(tok, "}"):
				path := tok[len("${file:") : len(tok)-1]
				b, err := os.ReadFile(path)
				if err != nil {
					return fmt.Errorf("%w: %w", ErrInvalid, &FieldError{field, "read token file " + path + ": " + err.Error()})
				}
				list.toks[i] = strings.TrimRight(string(b), "\r\n")
			}
		}
	}
	return nil
}

// validateServer checks the listener's security settings.
func (c *Config) validateServer() *FieldError {
	s := c.Server
	seen := map[string]bool{}
	for _, list := range []struct {
		field string
		toks  []string
	}{{"server.adminTokens", s.AdminTokens}, {"server.readTokens", s.ReadTokens}} {
		for i, tok := range list.toks {
			field := fmt.Sprintf("%s[%d]", list.field, i)
			switch {
			case len(tok) < MinTokenLen:
				return &FieldError{field, fmt.Sprintf("a token needs at least %d characters", MinTokenLen)}
			case strings.ContainsAny(tok, " \t\r\n,"):
				return &FieldError{field, "a token may not hold white space or ','"}
			case seen[tok]:
				return &FieldError{field, "the same token is listed twice"}
			}
			seen[tok] = true
		}
	}
	if !s.HasTokens() && !s.Insecure && !egress.IsLoopbackAddr(s.Addr) {
		return &FieldError{"server.addr", fmt.Sprintf("%s is not a loopback address and no API token is set: "+
			"set server.adminTokens (or readTokens), or server.insecure: true to serve it open", s.Addr)}
	}
	for i, o := range s.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
			return &FieldError{fmt.Sprintf("server.allowedOrigins[%d]", i), fmt.Sprintf("want scheme://host[:port], got %q", o)}
		}
	}
	for i, h := range s.AllowedHosts {
		if h == "" || strings.ContainsAny(h, "/:@ ") {
			return &FieldError{fmt.Sprintf("server.allowedHosts[%d]", i), fmt.Sprintf("want a host name without port, got %q", h)}
		}
	}
	for _, d := range []struct {
		field string
		v     int64
	}{
		{"server.readTimeout", int64(s.ReadTimeout)}, {"server.writeTimeout", int64(s.WriteTimeout)},
		{"server.idleTimeout", int64(s.IdleTimeout)}, {"server.maxBodyBytes", s.MaxBodyBytes},
		{"server.maxCatalogCalls", int64(s.MaxCatalogCalls)}, {"server.storeTimeout", int64(s.StoreTimeout)},
	} {
		if fe := positive(d.field, d.v); fe != nil {
			return fe
		}
	}
	return nil
}

// validateSecurity checks the local-file and secret-reference roots.
func (c *Config) validateSecurity() *FieldError {
	for _, list := range []struct {
		field string
		dirs  []string
	}{{"security.localRoots", c.Security.LocalRoots}, {"security.secretFileRoots", c.Security.SecretFileRoots}} {
		for i, d := range list.dirs {
			if err := catalog.CheckRoot(d); err != nil {
				return &FieldError{fmt.Sprintf("%s[%d]", list.field, i), err.Error()}
			}
		}
	}
	for i, n := range c.Security.SecretEnv {
		if n == "" || n == "*" || strings.ContainsAny(n, " =") {
			return &FieldError{fmt.Sprintf("security.secretEnv[%d]", i), fmt.Sprintf("want a variable name or PREFIX_*, got %q", n)}
		}
	}
	return nil
}

// Policy is the catalog policy the security settings describe.
func (s Security) Policy() catalog.Policy {
	return catalog.Policy{LocalRoots: s.LocalRoots, SecretEnv: s.SecretEnv, SecretFileRoots: s.SecretFileRoots,
		Egress: s.EgressPolicy()}
}
