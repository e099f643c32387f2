package catalog

import (
	"context"
	"log/slog"
	"net/url"

	"github.com/apache/iceberg-go/catalog/hadoop"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/aws/aws-sdk-go-v2/aws"
)

// openHadoop opens a Hadoop-layout warehouse (a directory or an s3:// URL)
// read-only. The latest metadata is found by listing each table's
// metadata/ folder. For S3 the credentials are resolved once into the
// FileIO props, because listing runs outside any request context.
func openHadoop(ctx context.Context, cfg Config, logger *slog.Logger) (Catalog, error) {
	wh := cfg.prop(PropWarehouse)
	props := cfg.fileIOProps(cfg.prop(PropRegion))
	u, err := url.Parse(wh)
	if err != nil {
		return nil, &FieldError{Field: cfg.field("props", PropWarehouse), Msg: "invalid warehouse URL: " + err.Error()}
	}
	if _, local := cfg.localPath(); local != "" {
		if err := existingFile(local, true); err != nil {
			return nil, &Error{Op: "open hadoop warehouse", Resource: wh, Kind: ErrBadCatalog, Err: err}
		}
	}
	var identity identityCheck
	if u.Scheme != "" && u.Scheme != "file" {
		// Required by iceberg-go for any object store, even to read; floe
		// never commits.
		props["allow-unsafe-commits"] = "true"
		if cfg.usesAWSCreds() {
			dataCfg, err := resolveStaticCreds(ctx, cfg, props)
			if err != nil {
				return nil, err
			}
			if cfg.prop(PropRoleARN) != "" || cfg.prop(PropDataPrefix+PropRoleARN) != "" {
				// STS is in use already: say which role the files are read as.
				// Static keys alone may belong to an S3-compatible store
				// without STS, so they are not checked.
				identity = cfg.callerIdentity(dataCfg)
			}
		}
	}
	cat, err := hadoop.NewCatalog(cfg.Name, wh, props)
	if err != nil {
		return nil, wrapErr("open hadoop warehouse", wh, "", err)
	}
	ic := &icebergCatalog{cfg: cfg, cat: cat, logger: logger, resource: wh, timeout: cfg.timeout(),
		access: cfg.access(), identity: identity}
	if u.Scheme != "" && u.Scheme != "file" {
		if ic.fileAWS, err = cfg.fileIOAWS(ctx, props[iceio.S3Region]); err != nil {
			return nil, err
		}
	}
	logger.Debug("opened hadoop catalog", slog.String("warehouse", wh))
	return ic, nil
}

// resolveStaticCreds retrieves the data credentials once into FileIO props
// and returns the AWS config they came from.
func resolveStaticCreds(ctx context.Context, cfg Config, props map[string]string) (aws.Config, error) {
	_, dataCfg, err := cfg.awsSides(ctx, props[iceio.S3Region])
	if err != nil {
		return aws.Config{}, err
	}
	creds, err := dataCfg.Credentials.Retrieve(ctx)
	if err != nil {
		return aws.Config{}, wrapErr("get data credentials for", cfg.prop(PropWarehouse), "sts:AssumeRole", err)
	}
	props[iceio.S3AccessKeyID] = creds.AccessKeyID
	props[iceio.S3SecretAccessKey] = creds.SecretAccessKey
	props[iceio.S3SessionToken] = creds.SessionToken
	return dataCfg, nil
}
