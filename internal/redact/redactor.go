// Package redact removes secret values from text before floe stores, logs or
// sends it (invariant I7).
//
// One [Redactor] per process knows every secret value floe holds: API
// tokens, Pinot headers, the Redis password and the secrets of every
// catalog connection it has stored or opened. Each owner (a connection, the
// configuration) registers its values under a key; registering again
// replaces them, so the set stays as large as the number of owners.
//
// [Redactor.Scrub] replaces every known value, and the forms a value takes
// on the wire, with [Mask]: the value itself, its base64, URL-escaped
// (query, path and userinfo, either case of hex), JSON-escaped and
// libpq-quoted forms, the token of "Bearer <token>", the base64
// user:password of "Basic <...>" and its password, the secret half of an
// "id:secret" client credential or "user:password" pair and the pair's
// base64 form. Values shorter than [MinLen] bytes are not scrubbed at all.
// A form of at least [AnywhereLen] bytes is replaced wherever it occurs; a
// shorter one only as a whole token (not inside a longer run of letters
// and digits), so a short secret does not garble the words that happen to
// contain it ("us-east-1" stays whole when a secret is "east").
//
// [NewHandler] wraps a slog.Handler so that every message and attribute is
// scrubbed before it is written.
package redact

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Mask replaces a secret value.
const Mask = "REDACTED"

// MinLen is the shortest value that is scrubbed.
const MinLen = 4

// AnywhereLen is the shortest form scrubbed inside longer words; shorter
// forms are scrubbed as whole tokens only.
const AnywhereLen = 12

// Redactor scrubs known secret values from text. It is safe for
// concurrent use; a nil *Redactor scrubs nothing.
type Redactor struct {
	mu     sync.RWMutex
	owners map[string][]string
	repl   *strings.Replacer // forms of AnywhereLen bytes or more
	short  []string          // shorter forms, longest first
}

// New returns an empty Redactor.
func New() *Redactor {
	return &Redactor{owners: map[string][]string{}, repl: strings.NewReplacer()}
}

// Set registers the secret values of owner (e.g. "connection/lake"),
// replacing what owner registered before. Empty values are ignored.
func (r *Redactor) Set(owner string, values ...string) {
	var forms []string
	for _, v := range values {
		forms = append(forms, Variants(v)...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(forms) == 0 {
		delete(r.owners, owner)
	} else {
		r.owners[owner] = forms
	}
	r.rebuild()
}

// Add registers more values under owner, keeping the ones it has.
func (r *Redactor) Add(owner string, values ...string) {
	var forms []string
	for _, v := range values {
		forms = append(forms, Variants(v)...)
	}
	if len(forms) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.owners[owner] = append(r.owners[owner], forms...)
	r.rebuild()
}

// Forget drops everything owner registered.
func (r *Redactor) Forget(owner string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.owners, owner)
	r.rebuild()
}

// rebuild makes the replacer from every long form and the list of short
// ones, longest first so that a value and a longer value holding it are
// both hidden whole.
func (r *Redactor) rebuild() {
	var all []string
	for _, forms := range r.owners {
		all = append(all, forms...)
	}
	slices.SortFunc(all, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	all = slices.Compact(all)
	pairs := make([]string, 0, 2*len(all))
	var short []string // a new slice: Scrub may still be reading the old one
	for _, v := range all {
		if len(v) >= AnywhereLen {
			pairs = append(pairs, v, Mask)
		} else {
			short = append(short, v)
		}
	}
	r.repl, r.short = strings.NewReplacer(pairs...), short
}

// Scrub returns s with every known secret form replaced by Mask.
func (r *Redactor) Scrub(s string) string {
	if r == nil || s == "" {
		return s
	}
	r.mu.RLock()
	repl, short := r.repl, r.short
	r.mu.RUnlock()
	s = repl.Replace(s)
	for _, v := range short {
		s = replaceTokens(s, v)
	}
	return s
}

// Scrub returns s with the given values (and their forms) scrubbed by the
// rules of a Redactor: for secrets a caller holds that no Redactor knows.
func Scrub(s string, values ...string) string {
	r := New()
	r.Set("", values...)
	return r.Scrub(s)
}

// replaceTokens replaces each whole-token occurrence of v in s.
func replaceTokens(s, v string) string {
	var b strings.Builder
	from := 0
	for i := 0; i+len(v) <= len(s); {
		j := strings.Index(s[i:], v)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(v)
		if wholeToken(s, at, end, v) {
			b.WriteString(s[from:at])
			b.WriteString(Mask)
			from, i = end, end
			continue
		}
		i = at + 1
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

// wholeToken reports whether s[at:end] (which is v) stands on its own: it
// does not extend a run of letters and digits on either side. A %XX
// escape before it counts as a boundary (an escaped separator).
func wholeToken(s string, at, end int, v string) bool {
	left := at == 0 || !word(s[at-1]) || !word(v[0]) ||
		at >= 3 && s[at-3] == '%' && hex(s[at-2]) && hex(s[at-1])
	right := end == len(s) || !word(s[end]) || !word(v[len(v)-1])
	return left && right
}

func word(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func hex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// Variants returns the forms a secret value may take in text floe
// handles (see the package documentation); none when v is too short.
func Variants(v string) []string {
	v = strings.TrimSpace(v)
	if len(v) < MinLen {
		return nil
	}
	out := []string{v}
	if scheme, rest, ok := strings.Cut(v, " "); ok {
		rest = strings.TrimSpace(rest)
		switch strings.ToLower(scheme) {
		case "bearer", "token":
			out = append(out, Variants(rest)...)
		case "basic":
			out = append(out, Variants(rest)...)
			if dec, err := base64.StdEncoding.DecodeString(rest); err == nil {
				out = append(out, Variants(string(dec))...)
			}
		}
	}
	if user, secret, ok := strings.Cut(v, ":"); ok && !strings.Contains(v, " ") {
		// user:password or client-id:client-secret: the pair travels in
		// Basic auth and URL userinfo, the second half alone in forms,
		// URLs and connection strings.
		out = append(out, base64.StdEncoding.EncodeToString([]byte(v)), url.UserPassword(user, secret).String())
		if len(secret) >= MinLen {
			out = append(out, secret)
		}
	}
	return escaped(out)
}

// escaped adds the encoded forms of each value: base64 (standard and URL
// alphabets, padded or not), URL-escaped for a query, a path and URL
// userinfo (hex in either case), JSON-escaped and quoted for a libpq
// key=value string.
func escaped(vals []string) []string {
	out := slices.Clone(vals)
	quote := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	for _, v := range vals {
		enc := []string{url.QueryEscape(v), url.PathEscape(v), userinfoEscape(v), quote.Replace(v)}
		for _, e := range enc[:3] {
			enc = append(enc, lowerHex(e))
		}
		if j, err := json.Marshal(v); err == nil {
			enc = append(enc, string(j[1:len(j)-1]))
		}
		for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			enc = append(enc, e.EncodeToString([]byte(v)))
		}
		for _, e := range enc {
			if len(e) >= MinLen {
				out = append(out, e)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// userinfoEscape is v as the password of URL userinfo.
func userinfoEscape(v string) string {
	return strings.TrimPrefix(url.UserPassword("u", v).String(), "u:")
}

// lowerHex lowers the hex digits of every %XX escape.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lower(b[i+1]), lower(b[i+2])
		}
	}
	return string(b)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}
