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
// on the wire, with [Mask]: the value itself, its URL- and JSON-escaped
// forms, the token of "Bearer <token>", the base64 user:password of
// "Basic <...>" and its password, the secret half of an "id:secret" client
// credential and the pair's base64 form. Values shorter than [MinLen] bytes are
// not scrubbed: replacing them would mangle every message without hiding
// anything.
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

// Redactor scrubs known secret values from text. It is safe for
// concurrent use; a nil *Redactor scrubs nothing.
type Redactor struct {
	mu     sync.RWMutex
	owners map[string][]string
	repl   *strings.Replacer
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

// rebuild makes the replacer from every registered form, longest first so
// that a value and a longer value holding it are both hidden whole.
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
	for _, v := range all {
		pairs = append(pairs, v, Mask)
	}
	r.repl = strings.NewReplacer(pairs...)
}

// Scrub returns s with every known secret form replaced by Mask.
func (r *Redactor) Scrub(s string) string {
	if r == nil || s == "" {
		return s
	}
	r.mu.RLock()
	repl := r.repl
	r.mu.RUnlock()
	return repl.Replace(s)
}

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
	if _, secret, ok := strings.Cut(v, ":"); ok && !strings.Contains(v, " ") {
		// user:password or client-id:client-secret: the pair travels in
		// Basic auth, the second half alone in forms and URLs.
		out = append(out, base64.StdEncoding.EncodeToString([]byte(v)))
		if len(secret) >= MinLen {
			out = append(out, secret)
		}
	}
	return escaped(out)
}

// escaped adds the URL- and JSON-escaped forms of each value.
func escaped(vals []string) []string {
	out := slices.Clone(vals)
	for _, v := range vals {
		out = append(out, url.QueryEscape(v), url.PathEscape(v))
		if j, err := json.Marshal(v); err == nil {
			out = append(out, string(j[1:len(j)-1]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
