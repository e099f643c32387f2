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

	"github.com/floehq/floe/internal/egress"
)

// Policy is what the operator lets connections reach: local catalog
// files and the secrets that connections refer to instead of holding
// them on floe's own machine, and the network addresses they may call. Callers apply it before Open ([Policy.Resolve]);
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
	// Egress decides which addresses connections may call (nil: the
	// default policy, public addresses only; see package egress). Check
	// refuses URL props whose host is a refused address literal; every
	// dial of a resolved connection is checked after name resolution.
	Egress *egress.Policy
}

// egressPolicy is p.Egress or, when unset, the default policy.
func (p Policy) egressPolicy() *egress.Policy {
	if p.Egress != nil {
		return p.Egress
	}
	return egress.Default()
}

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
	if err := checkEgress(p.egressPolicy(), cfg); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Resolve checks cfg and returns it with every ${env:NAME} and
// ${file:/path} secret replaced by its value, read now: a secret held
// that way is never stored. The tables of a catalog opened with the
// result read local files only under LocalRoots, whatever paths the
// catalog names (each read is checked).
func (p Policy) Resolve(cfg Config) (Config, error) {
	if err := p.Check(cfg); err != nil {
		return cfg, err
	}
	out := cfg
	out.local = &localGuard{roots: resolveRoots(slices.Clone(p.LocalRoots))}
	out.egress = p.egressPolicy()
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

// within reports whether path (made absolute, symlinks followed as far as
// they exist) lies under one of roots and outside the system directories.
func within(path string, roots []string) error {
	_, err := resolveRoots(roots).admit(path)
	return err
}

// allowedRoots are directories local files may lie under: as configured
// (for messages) and resolved, symlinks followed, without the ones
// CheckRoot refuses.
type allowedRoots struct {
	named, real []string
}

// resolveRoots resolves roots once, so that checking a path costs the
// path's resolution only.
func resolveRoots(roots []string) allowedRoots {
	a := allowedRoots{named: roots}
	for _, root := range roots {
		if r, err := realPath(root); err == nil && CheckRoot(r) == nil {
			a.real = append(a.real, r)
		}
	}
	return a
}

// admit returns path's real path (absolute, symlinks followed as far as
// they exist) when it lies under one of the roots and outside the system
// directories, and an error naming path otherwise.
func (a allowedRoots) admit(path string) (string, error) {
	real, err := realPath(path)
	if err != nil {
		return "", err
	}
	if sys := systemDir(real); sys != "" {
		return "", fmt.Errorf("%s is under %s, which floe never reads", path, sys)
	}
	if len(a.named) == 0 {
		return "", fmt.Errorf("%s is refused: no local directory is allowed", path)
	}
	for _, r := range a.real {
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", fmt.Errorf("%s is outside the allowed directories (%s)", path, strings.Join(a.named, ", "))
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
