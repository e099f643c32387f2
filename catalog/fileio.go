package catalog

import (
	"context"
	"strings"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	_ "github.com/apache/iceberg-go/io/gocloud/s3" // s3:// FileIO
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/utils"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/floehq/floe/catalog/awsaccess"
)

// dataAccess is how table files are read: FileIO props (region, endpoint,
// pass-through s3.* props) and optionally an AWS config that every FileIO
// operation gets through its context.
type dataAccess struct {
	props  iceberg.Properties
	aws    *aws.Config
	access awsaccess.Access // names a missing permission in errors
	local  *localGuard      // the connection's local-file guard (nil: none)
}

// usesAWSCreds reports whether the connection names any AWS credentials.
func (c Config) usesAWSCreds() bool {
	return c.secret(SecretAccessKeyID) != "" || c.prop(PropRoleARN) != "" || c.hasDataCreds()
}

// fileIOProps returns the FileIO props for tables of this connection: the
// s3.* props, and the s3.* secrets (FileIO credentials) over them.
func (c Config) fileIOProps(region string) iceberg.Properties {
	props := iceberg.Properties{}
	for k, v := range c.Props {
		if strings.HasPrefix(k, "s3.") {
			props[k] = v
		}
	}
	for k, v := range c.Secrets { // s3.access-key-id, s3.secret-access-key, s3.session-token
		if strings.HasPrefix(k, "s3.") {
			props[k] = v
		}
	}
	if r := c.prop(PropDataPrefix + PropRegion); r != "" {
		region = r
	}
	if region != "" && props[iceio.S3Region] == "" {
		props[iceio.S3Region] = region
	}
	if ep := c.endpointFor(svcS3); ep != "" && props[iceio.S3EndpointURL] == "" {
		props[iceio.S3EndpointURL] = ep
	}
	return props
}

// fsF returns the FileIO factory for files under loc.
func (d dataAccess) fsF(loc string) table.FSysF {
	return func(ctx context.Context) (iceio.IO, error) {
		if d.aws != nil {
			ctx = utils.WithAwsConfig(ctx, d.aws)
		}
		fs, err := iceio.LoadFS(ctx, d.props, loc)
		if err != nil {
			return nil, wrapErr("open file system for", loc, "", err)
		}
		return d.local.guard(fs), nil
	}
}

// loadFromLocation reads a metadata.json and returns a read-only table.
func (d dataAccess) loadFromLocation(ctx context.Context, ident TableIdent, loc string) (*table.Table, error) {
	if d.aws != nil {
		ctx = utils.WithAwsConfig(ctx, d.aws)
	}
	tbl, err := table.NewFromLocation(ctx, ident.iceberg(), loc, d.fsF(loc), nil)
	if err != nil {
		return nil, metadataErr(loc, d.access, err)
	}
	return tbl, nil
}

// rewrap gives a table loaded by an iceberg-go catalog this connection's
// FileIO. The result is read-only (no catalog behind it).
func (d dataAccess) rewrap(tbl *table.Table) *table.Table {
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), d.fsF(tbl.MetadataLocation()), nil)
}

// withAWS puts cfg (when non-nil) in ctx for iceberg-go's S3 FileIO.
func withAWS(ctx context.Context, cfg *aws.Config) context.Context {
	if cfg == nil {
		return ctx
	}
	return utils.WithAwsConfig(ctx, cfg)
}

// policedFiles keeps the FileIO iceberg-go built for tbl from its
// catalog's props (vended credentials included) but opens it with cfg in
// the context: the S3 FileIO then sends its requests through cfg's HTTP
// client, under the egress policy, while the props' endpoint, region and
// keys still apply.
func policedFiles(tbl *table.Table, cfg *aws.Config) *table.Table {
	fs := func(ctx context.Context) (iceio.IO, error) { return tbl.FS(withAWS(ctx, cfg)) }
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), fs, nil)
}

// fileIOAWS is the AWS config the S3 FileIO of a REST or Hadoop catalog
// starts from: the default credential chain (the props' keys, vended or
// resolved, override it, as they did), floe's HTTP client under the
// egress policy for AWS endpoints.
func (c Config) fileIOAWS(ctx context.Context, region string) (*aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region), config.WithHTTPClient(c.awsHTTPClient()),
		config.WithRetryer(awsRetryer))
	if err != nil {
		return nil, wrapErr("load AWS config", "", "", err)
	}
	c.policeAWS(&cfg)
	return &cfg, nil
}

// metadataErr classifies a failure to read a metadata file: access and
// network problems keep their category, the rest is ErrBadMetadata.
func metadataErr(loc string, access awsaccess.Access, err error) error {
	e := &Error{Op: "read table metadata", Resource: loc, Permission: dataHint(access, awsaccess.OpReadData, loc, err), Kind: classify(err), Err: err}
	if e.Kind == nil {
		e.Kind = ErrBadMetadata
	}
	if e.Kind == ErrNotFound {
		e.Kind = ErrBadMetadata
		e.Err = &missingFileError{err: err}
	}
	return e
}

type missingFileError struct{ err error }

func (e *missingFileError) Error() string { return "metadata file does not exist: " + e.err.Error() }
func (e *missingFileError) Unwrap() error { return e.err }

// newTable wraps a loaded iceberg-go table, its local reads guarded by
// the connection's policy (localGuard).
func (c Config) newTable(ident TableIdent, tbl *table.Table) *Table {
	tbl = c.local.wrap(tbl)
	return &Table{
		Ident:            ident,
		MetadataLocation: tbl.MetadataLocation(),
		UUID:             tbl.Metadata().TableUUID().String(),
		Iceberg:          tbl,
	}
}
