package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Secret references: a connection secret written ${env:NAME} or
// ${file:/path} is read when the connection is opened (Policy.Resolve),
// so the store keeps only the reference.

// maxSecretFile bounds a secret file.
const maxSecretFile = 64 << 10

// IsSecretRef reports whether a secret value is a ${env:NAME} or
// ${file:/path} reference rather than the secret itself.
func IsSecretRef(v string) bool {
	_, _, ok := parseSecretRef(v)
	return ok
}

// parseSecretRef splits "${env:NAME}" or "${file:/path}"; ok is false for
// a plain value.
func parseSecretRef(v string) (kind, arg string, ok bool) {
	if !strings.HasPrefix(v, "${") || !strings.HasSuffix(v, "}") {
		return "", "", false
	}
	kind, arg, _ = strings.Cut(v[2:len(v)-1], ":")
	return kind, arg, true
}

// secretRef checks a secret value and, when read is set, returns what it
// refers to (a plain value is returned as it is).
func (p Policy) secretRef(v string, read bool) (string, error) {
	kind, arg, ok := parseSecretRef(v)
	if !ok {
		return v, nil
	}
	switch kind {
	case "env":
		return p.envSecret(v, arg, read)
	case "file":
		return p.fileSecret(v, arg, read)
	}
	return "", fmt.Errorf("unknown secret reference %s: want ${env:NAME} or ${file:/path}", v)
}

func (p Policy) envSecret(ref, name string, read bool) (string, error) {
	if !envNameOK(name) {
		return "", fmt.Errorf("%s: %q is not an environment variable name", ref, name)
	}
	if !slices.ContainsFunc(p.SecretEnv, func(pat string) bool {
		return pat == name || strings.HasSuffix(pat, "*") && strings.HasPrefix(name, strings.TrimSuffix(pat, "*"))
	}) {
		return "", fmt.Errorf("%s: %s is not listed in security.secretEnv", ref, name)
	}
	if !read {
		return "", nil
	}
	lookup := p.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	val, ok := lookup(name)
	if !ok || val == "" {
		return "", fmt.Errorf("%s: %s is not set", ref, name)
	}
	return val, nil
}

func envNameOK(n string) bool {
	for i, r := range n {
		if r != '_' && !(r >= 'A' && r <= 'Z') && !(r >= 'a' && r <= 'z') && (i == 0 || !(r >= '0' && r <= '9')) {
			return false
		}
	}
	return n != ""
}

func (p Policy) fileSecret(ref, path string, read bool) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: want an absolute path", ref)
	}
	if err := within(path, p.SecretFileRoots); err != nil {
		return "", fmt.Errorf("%s: %w; list its directory in security.secretFileRoots to allow it", ref, err)
	}
	if !read {
		return "", nil
	}
	b, err := readSmallFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", ref, err)
	}
	val := strings.TrimRight(string(b), "\r\n")
	if val == "" {
		return "", fmt.Errorf("%s: the file is empty", ref)
	}
	return val, nil
}

// readSmallFile reads a regular file of at most maxSecretFile bytes; its
// errors name the path only (never the content).
func readSmallFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read secret file: %w", unwrapPathErr(err))
	case !st.Mode().IsRegular():
		return nil, errors.New("read secret file: not a regular file")
	case st.Size() > maxSecretFile:
		return nil, fmt.Errorf("read secret file: larger than %d bytes", maxSecretFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read secret file: %w", unwrapPathErr(err))
	}
	return b, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// SecretValues returns every secret value of the connection: its secrets,
// any credential still written in props (see [Config.MoveCredentials]),
// and each password paired with the user of the URL it belongs to
// ("user:password", the form HTTP Basic encodes), so that a redactor
// hides them all. Secret references are not values: they are left out.
func (c Config) SecretValues() []string {
	moved, _ := c.MoveCredentials()
	var out []string
	for _, k := range slices.Sorted(maps.Keys(moved.Secrets)) {
		v := moved.Secrets[k]
		if v == "" || IsSecretRef(v) {
			continue
		}
		out = append(out, v)
		if user := moved.passwordUser(k); user != "" {
			out = append(out, user+":"+v)
		}
	}
	return out
}

// passwordUser returns the user of the URL whose password the secret key
// holds ("password": the uri; "<prop>.password": that prop), or "".
func (c Config) passwordUser(key string) string {
	prop, ok := strings.CutSuffix(key, "."+SecretPassword)
	switch {
	case key == SecretPassword:
		prop = PropURI
	case !ok:
		return ""
	}
	u, err := url.Parse(c.Props[prop])
	if err != nil || u.User == nil {
		return ""
	}
	return u.User.Username()
}

// unresolvedRef returns the field of the first secret that is still a
// ${env:...} or ${file:...} reference, or "".
func (c Config) unresolvedRef() string {
	for _, k := range slices.Sorted(maps.Keys(c.Secrets)) {
		if _, _, ok := parseSecretRef(c.Secrets[k]); ok {
			return c.field("secrets", k)
		}
	}
	return ""
}
