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

// Policy is what the operator lets connections reach on floe's own
// machine: local catalog files and the secrets that connections refer to
// instead of holding them. Callers apply it before Open ([Policy.Resolve]);
// the messages name the floe settings it comes from (security.localRoots,
// security.secretEnv, security.secretFileRoots).
type Policy struct {
	// LocalRoots are the directories under which sqlite catalog files and
	// local (file:// or plain path) Hadoop warehouses may lie. Empty: no
	// local catalog at all.
	LocalRoots []string
	// SecretEnv names the environment variables a ${env:NAME} secret may
	// read; an entry ending in '*' allows every name with that prefix.
	SecretEnv []string
	// SecretFileRoots are the directories a ${file:/path} secret may read
	// from.
	SecretFileRoots []string
	// LookupEnv reads the environment (nil: os.LookupEnv).
	LookupEnv func(string) (string, bool)
}

// maxSecretFile bounds a secret file.
const maxSecretFile = 64 << 10

// SystemDirs are never local roots, and nothing under them is read as a
// catalog or a secret, whatever the roots say.
func SystemDirs() []string { return []string{"/etc", "/proc", "/sys", "/dev"} }

// CheckRoot refuses a directory that may not be a root: "/" and the
// SystemDirs and anything under them. It does no I/O.
func CheckRoot(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%q is not an absolute path", dir)
	}
	clean := filepath.Clean(dir)
	if clean == "/" {
		return errors.New(`"/" would open the whole machine; name the directories that hold catalogs`)
	}
	if sys := systemDir(clean); sys != "" {
		return fmt.Errorf("%q is under %s, which floe never reads", dir, sys)
	}
	return nil
}

// systemDir returns the system directory path is in, or "".
func systemDir(path string) string {
	for _, d := range SystemDirs() {
		if path == d || strings.HasPrefix(path, d+"/") {
			return d
		}
	}
	if path == "/" {
		return "/"
	}
	return ""
}

// Check reports whether cfg stays within the policy: its local files under
// LocalRoots, its secret references allowed. It reads no secret.
func (p Policy) Check(cfg Config) error {
	var errs []error
	if field, path := cfg.localPath(); path != "" {
		if err := within(path, p.LocalRoots); err != nil {
			errs = append(errs, &FieldError{Field: field, Msg: "local file " + err.Error() +
				"; list its directory in security.localRoots to allow it"})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Secrets)) {
		if _, err := p.secretRef(cfg.Secrets[k], false); err != nil {
			errs = append(errs, &FieldError{Field: cfg.field("secrets", k), Msg: err.Error()})
		}
	}
	return errors.Join(errs...)
}

// Resolve checks cfg and returns it with every ${env:NAME} and
// ${file:/path} secret replaced by its value, read now: a secret held
// that way is never stored.
func (p Policy) Resolve(cfg Config) (Config, error) {
	if err := p.Check(cfg); err != nil {
		return cfg, err
	}
	out := cfg
	out.Secrets = maps.Clone(cfg.Secrets)
	for k, v := range cfg.Secrets {
		val, err := p.secretRef(v, true)
		if err != nil {
			return cfg, &FieldError{Field: cfg.field("secrets", k), Msg: err.Error()}
		}
		out.Secrets[k] = val
	}
	return out, nil
}

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

// within reports whether path (made absolute, symlinks followed as far as
// they exist) lies under one of roots and outside the system directories.
func within(path string, roots []string) error {
	real, err := realPath(path)
	if err != nil {
		return err
	}
	if sys := systemDir(real); sys != "" {
		return fmt.Errorf("%s is under %s, which floe never reads", path, sys)
	}
	if len(roots) == 0 {
		return fmt.Errorf("%s is refused: no local directory is allowed", path)
	}
	for _, root := range roots {
		r, err := realPath(root)
		if err != nil || CheckRoot(r) != nil {
			continue
		}
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) {
			return nil
		}
	}
	return fmt.Errorf("%s is outside the allowed directories (%s)", path, strings.Join(roots, ", "))
}

// realPath makes path absolute and resolves symlinks in the longest part
// of it that exists.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), nil
		}
		if dir == filepath.Dir(dir) {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// localPath returns the local file or directory cfg opens and the field
// that names it, or "" when it opens nothing local.
func (c Config) localPath() (field, path string) {
	switch c.Type {
	case TypeSQL:
		if _, driver := c.sqlDriver(); driver != "sqlite" {
			return "", ""
		}
		return c.field("props", PropURI), sqlitePath(c.prop(PropURI))
	case TypeHadoop:
		wh := c.prop(PropWarehouse)
		u, err := url.Parse(wh)
		if err != nil || u.Scheme != "" && u.Scheme != "file" {
			return "", ""
		}
		if u.Scheme == "file" {
			wh = u.Path
		}
		return c.field("props", PropWarehouse), wh
	}
	return "", ""
}

// sqlitePath returns the file a sqlite DSN opens ("" for an in-memory
// database).
func sqlitePath(dsn string) string {
	p, _, _ := strings.Cut(dsn, "?")
	if strings.HasPrefix(p, "file:") {
		p = strings.TrimPrefix(p, "file:")
		if strings.HasPrefix(p, "//") {
			p = strings.TrimPrefix(p, "//localhost")
			p = strings.TrimPrefix(p, "//")
			if !strings.HasPrefix(p, "/") {
				p = "/" + p
			}
		}
	}
	if p == ":memory:" || p == "" {
		return ""
	}
	return p
}

// SecretValues returns every secret value of the connection: its secrets
// and any password written into a URL prop (a redactor hides them all).
// Secret references are not values: they are left out.
func (c Config) SecretValues() []string {
	var out []string
	for _, v := range c.Secrets {
		if !IsSecretRef(v) {
			out = append(out, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Props)) {
		if u, err := url.Parse(c.Props[k]); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok && pw != "" {
				out = append(out, pw)
			}
		}
	}
	return out
}

// existingFile checks that a local catalog file (or, with dir, a warehouse
// directory) exists: opening a catalog never creates anything. "" is an
// in-memory database.
func existingFile(path string, dir bool) error {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("it does not exist (floe never creates catalog files)")
	case err != nil:
		return fmt.Errorf("stat: %w", unwrapPathErr(err))
	case dir && !st.IsDir():
		return errors.New("it is not a directory")
	case !dir && !st.Mode().IsRegular():
		return errors.New("it is not a regular file")
	}
	return nil
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
