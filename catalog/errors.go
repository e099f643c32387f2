package catalog

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/aws/smithy-go"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/floehq/floe/internal/egress"
)

// Sentinel errors callers branch on (errors.Is).
var (
	// ErrInvalidConfig: the connection config is wrong; the message names the field.
	ErrInvalidConfig = errors.New("invalid catalog config")
	// ErrNotFound: no such namespace, table, table bucket or file.
	ErrNotFound = errors.New("not found")
	// ErrAccessDenied: the credentials work but lack a permission.
	ErrAccessDenied = errors.New("access denied")
	// ErrBadCredentials: the credentials were rejected (unknown key, bad
	// signature, expired token, failed OAuth).
	ErrBadCredentials = errors.New("credentials rejected")
	// ErrUnreachable: the endpoint could not be reached.
	ErrUnreachable = errors.New("endpoint unreachable")
	// ErrTimeout: the call did not finish in time.
	ErrTimeout = errors.New("timed out")
	// ErrBadMetadata: the metadata location is missing or malformed, or the
	// metadata file cannot be read or parsed.
	ErrBadMetadata = errors.New("bad table metadata")
	// ErrWrongRegion: the request went to a region the resource is not in.
	ErrWrongRegion = errors.New("wrong region")
	// ErrBadCatalog: the connection reaches something that is not a
	// catalog it describes: a missing file, a file that is not a database,
	// a database without the Iceberg catalog tables, a warehouse that is
	// not a directory. The connection needs fixing, not the peer.
	ErrBadCatalog = errors.New("not a usable catalog")
)

// Error is a failed catalog call: what was done, on which resource, what
// kind of failure, and for access problems the permission that is missing.
type Error struct {
	Op         string // e.g. "get table metadata location"
	Resource   string // ARN, URL, identifier or path
	Permission string // e.g. "s3tables:GetTableMetadataLocation" (may be "")
	Kind       error  // one of the sentinels, or nil
	Err        error  // the underlying error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Resource != "" {
		b.WriteString(" " + e.Resource)
	}
	if e.Kind != nil {
		b.WriteString(": " + e.Kind.Error())
	}
	if e.Kind != nil && e.Permission != "" && (errors.Is(e.Kind, ErrAccessDenied) || errors.Is(e.Kind, ErrBadCredentials)) {
		fmt.Fprintf(&b, " (needs %s on %s)", e.Permission, e.resourceOrAny())
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *Error) resourceOrAny() string {
	if e.Resource == "" {
		return "*"
	}
	return e.Resource
}

// Unwrap exposes both the category and the cause.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// wrapErr classifies err and wraps it with the operation, resource and the
// permission the operation needs.
func wrapErr(op, resource, permission string, err error) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	return &Error{Op: op, Resource: resource, Permission: permission, Kind: classify(err), Err: err}
}

// awsCodes maps AWS error codes to categories.
var awsCodes = map[string]error{
	"AccessDenied":                 ErrAccessDenied,
	"AccessDeniedException":        ErrAccessDenied,
	"Forbidden":                    ErrAccessDenied,
	"UnauthorizedOperation":        ErrAccessDenied,
	"NotFound":                     ErrNotFound,
	"NotFoundException":            ErrNotFound,
	"NoSuchBucket":                 ErrNotFound,
	"NoSuchKey":                    ErrNotFound,
	"EntityNotFoundException":      ErrNotFound,
	"ResourceNotFoundException":    ErrNotFound,
	"InvalidClientTokenId":         ErrBadCredentials,
	"UnrecognizedClientException":  ErrBadCredentials,
	"SignatureDoesNotMatch":        ErrBadCredentials,
	"InvalidAccessKeyId":           ErrBadCredentials,
	"InvalidSignatureException":    ErrBadCredentials,
	"ExpiredToken":                 ErrBadCredentials,
	"ExpiredTokenException":        ErrBadCredentials,
	"InvalidToken":                 ErrBadCredentials,
	"AuthorizationHeaderMalformed": ErrWrongRegion,
	"PermanentRedirect":            ErrWrongRegion,
	"IncorrectEndpoint":            ErrWrongRegion,
}

// sqlStates maps SQLSTATE codes (Postgres) to categories.
var sqlStates = map[string]error{
	"28000": ErrBadCredentials, // invalid_authorization_specification
	"28P01": ErrBadCredentials, // invalid_password
	"42501": ErrAccessDenied,   // insufficient_privilege
	"3D000": ErrNotFound,       // invalid_catalog_name (no such database)
	"42P01": ErrNotFound,       // undefined_table (no iceberg_tables)
}

// classify returns the sentinel category of err, or nil.
func classify(err error) error {
	if errors.Is(err, egress.ErrUnreachable) || errors.Is(err, egress.ErrRefused) || errors.As(err, new(*egress.RedirectError)) {
		return ErrUnreachable
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		if kind, ok := awsCodes[apiErr.ErrorCode()]; ok {
			return kind
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return ErrTimeout
	case errors.Is(err, rest.ErrForbidden):
		return ErrAccessDenied
	case errors.Is(err, rest.ErrUnauthorized), errors.Is(err, rest.ErrAuthorizationExpired), errors.Is(err, rest.ErrOAuthError):
		return ErrBadCredentials
	case errors.Is(err, icecatalog.ErrNoSuchTable), errors.Is(err, icecatalog.ErrNoSuchNamespace):
		return ErrNotFound
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return ErrUnreachable
	}
	var sqlErr interface{ SQLState() string }
	if errors.As(err, &sqlErr) {
		if kind, ok := sqlStates[sqlErr.SQLState()]; ok {
			return kind
		}
	}
	if kind := sqliteKind(err); kind != nil {
		return kind
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return ErrTimeout
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return ErrUnreachable
	}
	return httpStatusKind(err)
}

// httpStatusKind maps an AWS HTTP status when no code matched.
func httpStatusKind(err error) error {
	var re interface{ HTTPStatusCode() int }
	if !errors.As(err, &re) {
		return nil
	}
	switch re.HTTPStatusCode() {
	case 403:
		return ErrAccessDenied
	case 401:
		return ErrBadCredentials
	case 404:
		return ErrNotFound
	case 301, 307:
		return ErrWrongRegion
	}
	return nil
}

// sqliteKind maps sqlite result codes: a file that is not a database, or
// one without the catalog tables, is not a usable catalog.
func sqliteKind(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return nil
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_CANTOPEN:
		return ErrBadCatalog
	case sqlite3.SQLITE_ERROR:
		if strings.Contains(se.Error(), "no such table") {
			return ErrBadCatalog
		}
	case sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
		return ErrAccessDenied
	}
	return nil
}
