package catalog

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// SQL drivers and the connection options floe lets a sql connection use.
//
// Only two database/sql drivers are accepted, each with its dialect:
// "sqlite" (modernc.org/sqlite) and "pgx" (jackc/pgx). Other drivers that
// happen to be linked into the binary (a library floe uses registers
// "mysql") are refused by name: a MySQL server may ask its client for any
// local file (LOAD DATA LOCAL INFILE).
//
// Options that make the driver read a local file, load code or reach a
// local socket are refused whatever their value, naming the option:
// Postgres sslkey, sslcert, sslrootcert, sslcrl, sslpassword, passfile,
// service, servicefile and a unix-socket host; sqlite options outside a
// short allow-list (vfs, modes that create files, and every _pragma but
// busy_timeout and query_only, since a pragma is SQL floe would run).

// SQLDrivers are the database/sql drivers a sql connection may name, by
// dialect.
func SQLDrivers() map[string]string { return map[string]string{"sqlite": "sqlite", "postgres": "pgx"} }

// pgRefusedOptions are the Postgres connection options that read local
// files (keys, certificates, password and service files) or name other
// options in a local file.
var pgRefusedOptions = []string{"sslkey", "sslcert", "sslrootcert", "sslcrl", "sslcrldir", "sslpassword",
	"passfile", "service", "servicefile"}

// sqliteAllowedOptions are the query options a sqlite DSN may carry; any
// other (vfs, cache, nolock, _pragma other than these, ...) is refused.
var sqliteAllowedOptions = []string{"_pragma", "mode", "immutable", "_txlock", "_time_format"}

// sqlitePragmas are the pragmas a sqlite DSN may set: waiting for a lock
// and read-only mode. Anything else is SQL floe would run on open.
var sqlitePragmas = []string{"busy_timeout", "query_only"}

// checkSQLDriver refuses a driver floe does not support or one that does
// not speak the connection's dialect; it reports whether the driver is
// fine.
func (v *validator) checkSQLDriver() bool {
	dialect, driver := v.c.sqlDriver()
	want := SQLDrivers()[string(dialect)]
	switch {
	case driver == want:
		return true
	case !slices.Contains([]string{"sqlite", "pgx"}, driver):
		v.add("props", PropDriver, fmt.Sprintf("unsupported driver %q: floe supports sqlite (dialect sqlite) and pgx (dialect postgres)", driver))
	default:
		v.add("props", PropDriver, fmt.Sprintf("driver %q does not speak dialect %s (want %q)", driver, dialect, want))
	}
	return false
}

// checkSQLOptions refuses the options of the uri the driver would act on
// by reading local files, loading code or running SQL.
func (v *validator) checkSQLOptions() {
	dsn := v.c.prop(PropURI)
	if dsn == "" {
		return
	}
	dialect, _ := v.c.sqlDriver()
	var err error
	if dialect == "postgres" {
		err = checkPostgresDSN(dsn)
	} else {
		err = checkSQLiteDSN(dsn)
	}
	if err != nil {
		v.add("props", PropURI, err.Error())
	}
}

// checkPostgresDSN checks a postgres:// URL or a key=value connection
// string.
func checkPostgresDSN(dsn string) error {
	opts, err := postgresOptions(dsn)
	if err != nil {
		return err
	}
	for _, o := range opts {
		key := strings.ToLower(o.key)
		if slices.Contains(pgRefusedOptions, key) {
			return fmt.Errorf("option %s is refused: it makes the driver read a local file (floe connects with the server's address and secrets.password only)", o.key)
		}
		if key == "host" && (strings.HasPrefix(o.val, "/") || strings.HasPrefix(o.val, "@")) {
			return fmt.Errorf("option host %q is refused: a unix socket is a local file (give a network address)", o.val)
		}
	}
	return nil
}

// dsnOption is one key and value of a connection string.
type dsnOption struct{ key, val string }

// postgresOptions returns the options of a postgres:// URL (its query;
// a host list pgx splits itself is checked by port) or a key=value string.
func postgresOptions(dsn string) ([]dsnOption, error) {
	if !isPostgresURI(dsn) {
		return keywordOptions(dsn)
	}
	rest := dsn[strings.Index(dsn, "://")+3:]
	authority, query, _ := strings.Cut(rest, "?")
	authority, _, _ = strings.Cut(authority, "/")
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		authority = authority[at+1:]
	}
	if err := checkHostList(authority); err != nil {
		return nil, err
	}
	return queryOptions(query)
}

// queryOptions splits a URL query into its options, in order. Unlike
// url.ParseQuery it keeps a ';' inside a value, so that the value is
// judged (and refused) as the driver would read it.
func queryOptions(query string) ([]dsnOption, error) {
	var out []dsnOption
	for _, part := range strings.Split(query, "&") {
		if part == "" {
			continue
		}
		k, val, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, fmt.Errorf("option %q is not URL-encoded correctly", k)
		}
		if val, err = url.QueryUnescape(val); err != nil {
			return nil, fmt.Errorf("option %s: the value is not URL-encoded correctly", key)
		}
		out = append(out, dsnOption{key, val})
	}
	return out, nil
}

// checkHostList checks the host[:port] list of a postgres URL: every port
// a number from 1 to 65535.
func checkHostList(hosts string) error {
	for _, hp := range strings.Split(hosts, ",") {
		if strings.HasPrefix(hp, "[") {
			_, hp, _ = strings.Cut(hp, "]")
		} else if i := strings.LastIndexByte(hp, ':'); i >= 0 {
			hp = hp[i:]
		} else {
			hp = ""
		}
		port, ok := strings.CutPrefix(hp, ":")
		if !ok || port == "" {
			continue
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("invalid postgres URL: port %q is not a number from 1 to 65535", port)
		}
	}
	return nil
}

// keywordOptions parses a libpq key=value connection string: values may be
// single-quoted, with \' and \\ escapes.
func keywordOptions(s string) ([]dsnOption, error) {
	var out []dsnOption
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("invalid connection string: want key=value pairs or a postgres:// URL")
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t\n\r")
		val, rest, err := keywordValue(s)
		if err != nil {
			return nil, fmt.Errorf("invalid connection string: option %s: %w", key, err)
		}
		out = append(out, dsnOption{key, val})
		s = rest
	}
	return out, nil
}

// keywordValue reads one value of a key=value string and returns the rest.
func keywordValue(s string) (val, rest string, err error) {
	if !strings.HasPrefix(s, "'") {
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		return strings.ReplaceAll(s[:end], `\`, ""), s[end:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '\'':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", fmt.Errorf("unterminated quoted value")
}

// checkSQLiteDSN allows a sqlite DSN only the options of
// sqliteAllowedOptions, with a read-only or read-write mode (never one
// that creates) and only the pragmas of sqlitePragmas.
func checkSQLiteDSN(dsn string) error {
	_, query, ok := strings.Cut(dsn, "?")
	if !ok {
		return nil
	}
	opts, err := queryOptions(query)
	if err != nil {
		return err
	}
	for _, o := range opts {
		if !slices.Contains(sqliteAllowedOptions, o.key) {
			return fmt.Errorf("option %s is refused (a sqlite uri may carry only %s)", o.key, strings.Join(sqliteAllowedOptions, ", "))
		}
		if err := checkSQLiteOption(o.key, o.val); err != nil {
			return err
		}
	}
	return nil
}

func checkSQLiteOption(key, val string) error {
	switch key {
	case "mode":
		if val != "ro" && val != "rw" {
			return fmt.Errorf("option mode=%s is refused (want ro or rw: floe never creates a catalog file)", val)
		}
	case "_pragma":
		name, _, _ := strings.Cut(val, "(")
		name = strings.ToLower(strings.TrimSpace(name))
		if !slices.Contains(sqlitePragmas, name) || strings.ContainsAny(val, ";=") {
			return fmt.Errorf("option _pragma %q is refused (allowed: %s)", val, strings.Join(sqlitePragmas, ", "))
		}
	}
	return nil
}
