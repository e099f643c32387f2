package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" (Postgres)
	_ "modernc.org/sqlite"             // database/sql driver "sqlite" (pure Go)
)

// sqlDialect maps a dialect prop to iceberg-go's dialect ("" if unknown).
func sqlDialect(d string) sqlcat.SupportedDialect {
	switch strings.ToLower(d) {
	case "sqlite", "sqlite3":
		return sqlcat.SQLite
	case "postgres", "postgresql", "pg":
		return sqlcat.Postgres
	}
	return ""
}

// isPostgresURI reports whether a sql uri is a postgres:// URL.
func isPostgresURI(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// sqlDriver resolves the dialect and the database/sql driver.
func (c Config) sqlDriver() (dialect sqlcat.SupportedDialect, driver string) {
	dialect = sqlDialect(c.prop(PropDialect))
	if dialect == "" {
		dialect = sqlcat.SQLite
		if isPostgresURI(c.prop(PropURI)) {
			dialect = sqlcat.Postgres
		}
	}
	driver = c.prop(PropDriver)
	if driver == "" {
		driver = "sqlite"
		if dialect == sqlcat.Postgres {
			driver = "pgx"
		}
	}
	return dialect, driver
}

// sqlSettings resolves dialect, driver and DSN (password applied).
func (c Config) sqlSettings() (dialect sqlcat.SupportedDialect, driver, dsn string, err error) {
	dsn = c.prop(PropURI)
	isPG := isPostgresURI(dsn)
	dialect, driver = c.sqlDriver()
	if driver == "sqlite" && !strings.Contains(dsn, "busy_timeout") {
		// Another process (PyIceberg, Spark, floe demo) may be committing;
		// wait for its lock instead of failing with SQLITE_BUSY.
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "_pragma=busy_timeout(10000)"
	}
	if dialect == sqlcat.Postgres {
		dsn = noLocalPassword(dsn, isPG, c.secret(SecretPassword) == "")
	}
	if pw := c.secret(SecretPassword); pw != "" {
		switch {
		case dialect != sqlcat.Postgres:
			return "", "", "", &FieldError{Field: c.field("secrets", SecretPassword), Msg: "a password needs a postgres connection"}
		case !isPG:
			// key=value form: a later key wins, so the secret is appended.
			dsn += " password='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
		default:
			u, perr := url.Parse(dsn)
			if perr != nil {
				return "", "", "", &FieldError{Field: c.field("props", PropURI), Msg: "invalid postgres URL: " + urlErrText(perr)}
			}
			u.User = url.UserPassword(u.User.Username(), pw)
			dsn = u.String()
		}
	}
	return dialect, driver, dsn, nil
}

// noLocalPassword adds an empty passfile option to a Postgres DSN (and,
// when the connection has no password, an empty password), so that the
// driver never sends a host a connection chose a password from floe's own
// ~/.pgpass, the file PGPASSFILE names or PGPASSWORD: the password is
// secrets.password or none.
func noLocalPassword(dsn string, isURL, noSecret bool) string {
	opts := []string{"passfile"}
	if noSecret {
		opts = append(opts, "password")
	}
	for _, o := range opts {
		switch {
		case !isURL:
			dsn += " " + o + "=''"
		case strings.Contains(dsn, "?"):
			dsn += "&" + o + "="
		default:
			dsn += "?" + o + "="
		}
	}
	return dsn
}

// urlErrText is a url.Parse error without the URL it quotes (which may
// hold a password).
func urlErrText(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err.Error()
	}
	return err.Error()
}

// redactDSN hides any password in a DSN.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.User != nil {
		return u.Redacted()
	}
	return dsn
}

// openSQL opens a SQL catalog read-only: it never creates or migrates the
// iceberg_tables / iceberg_namespace_properties tables.
func openSQL(ctx context.Context, cfg Config, logger *slog.Logger) (Catalog, error) {
	dialect, driver, dsn, err := cfg.sqlSettings()
	if err != nil {
		return nil, err
	}
	resource := redactDSN(cfg.prop(PropURI))
	if driver == "sqlite" {
		if err := existingFile(sqlitePath(cfg.prop(PropURI)), false); err != nil {
			return nil, &Error{Op: "open sqlite catalog", Resource: resource, Kind: ErrBadCatalog, Err: err}
		}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, &FieldError{Field: cfg.field("props", PropURI), Msg: fmt.Sprintf("driver %s refused it", driver)}
	}
	pingCtx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		if _, bad := errors.AsType[*pgconn.ParseConfigError](err); bad {
			return nil, &FieldError{Field: cfg.field("props", PropURI), Msg: "invalid postgres connection string (check host, port and options)"}
		}
		return nil, wrapErr("connect to sql catalog", resource, "", err)
	}
	props := cfg.fileIOProps(cfg.prop(PropRegion))
	props["init_catalog_tables"] = "false"
	if wh := cfg.prop(PropWarehouse); wh != "" {
		props[PropWarehouse] = wh
	}
	name := cfg.prop(PropSQLCatalogName)
	if name == "" {
		name = cfg.Name
	}
	cat, err := sqlcat.NewCatalog(name, db, dialect, props)
	if err != nil {
		_ = db.Close()
		return nil, wrapErr("open sql catalog", resource, "", err)
	}
	ic := &icebergCatalog{cfg: cfg, cat: cat, logger: logger, resource: resource, timeout: cfg.timeout(),
		closers: []func() error{db.Close}}
	if err := ic.attachData(ctx, cfg.prop(PropRegion)); err != nil {
		_ = ic.Close()
		return nil, err
	}
	logger.Debug("opened sql catalog", slog.String("dialect", string(dialect)), slog.String("catalog_name", name))
	return ic, nil
}

// attachData sets the data FileIO when the connection names AWS
// credentials; otherwise the iceberg-go catalog's FileIO (props, default
// chain) is kept.
func (c *icebergCatalog) attachData(ctx context.Context, region string) error {
	if !c.cfg.usesAWSCreds() {
		return nil
	}
	_, dataCfg, err := c.cfg.awsSides(ctx, region)
	if err != nil {
		return err
	}
	c.data = &dataAccess{props: c.cfg.fileIOProps(region), aws: &dataCfg, access: c.cfg.access(), local: c.cfg.local}
	return nil
}
