package catalog

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// One secret model: a credential is a secret wherever it is written.
// Props are shown to every reader of the API, so a credential written in
// props — a key, token or password under its own name, an authorization
// header, a password inside a URL or a Postgres connection string — is
// refused by [Config.Validate] naming the secrets key it belongs under.
// Records written before this rule (or given in floe's configuration
// file) are rewritten by [Config.MoveCredentials], which moves each such
// credential to that key.

// MinSecretLen is the shortest secret value a connection may hold: a
// shorter one cannot be told apart from ordinary words, so it could
// neither be hidden nor scrubbed without garbling other text.
const MinSecretLen = 8

// credentialName matches the last segment of a prop key that names a
// credential: exact secret names, and names ending in one.
var credentialName = regexp.MustCompile(`(?i)(^|[-_.])(password|passwd|secret|secret-access-key|token|session-token|` +
	`credential|credentials|api-key|apikey|private-key|access-key-id|authorization|cookie)$`)

// misplaced is one credential written in props.
type misplaced struct {
	prop   string // the props key holding it
	secret string // the secrets key it belongs under
	value  string // the credential
	rest   string // the prop's value without the credential ("" to drop the prop)
	what   string // how it was written, for the message
}

// isCredentialProp reports whether a props key names a credential:
// "token", "s3.secret-access-key", "data.session-token",
// "header.Authorization", "header.X-Api-Key", ...
func isCredentialProp(key string) bool {
	if h, ok := strings.CutPrefix(strings.ToLower(key), "header."); ok {
		return credentialName.MatchString(h) || strings.Contains(h, "auth")
	}
	return credentialName.MatchString(key[strings.LastIndexByte(key, '.')+1:])
}

// misplacedCredentials lists the credentials written in props, in key
// order.
func (c Config) misplacedCredentials() []misplaced {
	var out []misplaced
	for _, k := range slices.Sorted(maps.Keys(c.Props)) {
		v := c.Props[k]
		switch {
		case strings.TrimSpace(v) == "":
		case isCredentialProp(k):
			out = append(out, misplaced{prop: k, secret: k, value: v, what: "is a credential"})
		default:
			if m, ok := c.passwordInValue(k, v); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// passwordSecret is the secrets key a password inside prop belongs under:
// "password" for the uri of a sql or rest connection, "<prop>.password"
// otherwise.
func (c Config) passwordSecret(prop string) string {
	if prop == PropURI && (c.Type == TypeSQL || c.Type == TypeREST) {
		return SecretPassword
	}
	return prop + "." + SecretPassword
}

// passwordInValue finds a password inside a prop's value: URL userinfo,
// a password query option of a postgres:// URL, or password= in a
// Postgres key=value string.
func (c Config) passwordInValue(key, v string) (misplaced, bool) {
	target := c.passwordSecret(key)
	if u, err := url.Parse(v); err == nil && u.Scheme != "" {
		if pw, ok := u.User.Password(); ok && pw != "" {
			u.User = url.User(u.User.Username())
			return misplaced{prop: key, secret: target, value: pw, rest: u.String(), what: "holds a password in its URL"}, true
		}
		if q := u.Query(); q.Get("password") != "" {
			pw := q.Get("password")
			q.Del("password")
			u.RawQuery = q.Encode()
			return misplaced{prop: key, secret: target, value: pw, rest: u.String(), what: "holds a password option"}, true
		}
		return misplaced{}, false
	}
	if key != PropURI || c.Type != TypeSQL {
		return misplaced{}, false
	}
	opts, err := keywordOptions(v)
	if err != nil {
		return misplaced{}, false
	}
	for i, o := range opts {
		if strings.EqualFold(o.key, "password") && o.val != "" {
			return misplaced{prop: key, secret: target, value: o.val,
				rest: keywordString(slices.Delete(slices.Clone(opts), i, i+1)), what: "holds password="}, true
		}
	}
	return misplaced{}, false
}

// keywordString writes options back as a key=value string, every value
// quoted.
func keywordString(opts []dsnOption) string {
	esc := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = o.key + "='" + esc.Replace(o.val) + "'"
	}
	return strings.Join(parts, " ")
}

// checkCredentials refuses credentials written in props.
func (v *validator) checkCredentials() {
	for _, m := range v.c.misplacedCredentials() {
		v.add("props", m.prop, fmt.Sprintf("%s; props are shown to every reader: give it as secrets.%s%s",
			m.what, m.secret, leaveOut(m)))
	}
}

// ValidateWrite is [Config.Validate] for a connection about to be stored:
// it also refuses secret values shorter than [MinSecretLen] (records
// stored before that rule still open).
func (c Config) ValidateWrite() error {
	v := &validator{c: c}
	for _, k := range slices.Sorted(maps.Keys(c.Secrets)) {
		val := c.Secrets[k]
		if IsSecretRef(val) || val == "" {
			continue
		}
		if len(val) < MinSecretLen {
			v.add("secrets", k, fmt.Sprintf("is %d characters; a secret needs at least %d", len(val), MinSecretLen))
		}
	}
	return errors.Join(append([]error{c.Validate()}, v.errs...)...)
}

func leaveOut(m misplaced) string {
	if m.rest == "" {
		return ""
	}
	return " and leave it out of props." + m.prop
}

// MoveCredentials returns c with every credential written in props moved
// to its secrets key (a secret already there wins), and the props keys it
// changed. Stored records from before the rule and connections of floe's
// configuration file are rewritten with it; the API refuses such props.
func (c Config) MoveCredentials() (Config, []string) {
	found := c.misplacedCredentials()
	if len(found) == 0 {
		return c, nil
	}
	out := c
	out.Props, out.Secrets = maps.Clone(c.Props), maps.Clone(c.Secrets)
	if out.Secrets == nil {
		out.Secrets = map[string]string{}
	}
	var moved []string
	for _, m := range found {
		if _, ok := out.Secrets[m.secret]; !ok {
			out.Secrets[m.secret] = m.value
		}
		if m.rest == "" {
			delete(out.Props, m.prop)
		} else {
			out.Props[m.prop] = m.rest
		}
		moved = append(moved, m.prop)
	}
	return out, moved
}
