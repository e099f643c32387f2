package catalog

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3tables"

	"github.com/floehq/floe/catalog/awsaccess"
)

// openS3Tables opens an S3 Tables table bucket. Mode rest uses the Iceberg
// REST endpoint (SigV4 service s3tables, warehouse = the bucket ARN); mode
// native uses the S3 Tables API (GetTableMetadataLocation, then the
// metadata file); mode auto tries REST and falls back to native when the
// REST endpoint cannot be used (emulators serve no /iceberg endpoint).
func openS3Tables(ctx context.Context, cfg Config, logger *slog.Logger) (Catalog, error) {
	arn, err := ParseTableBucketARN(cfg.prop(PropARN))
	if err != nil {
		return nil, &FieldError{Field: cfg.field("props", PropARN), Msg: err.Error()}
	}
	catalogCfg, dataCfg, err := cfg.awsSides(ctx, arn.Region)
	if err != nil {
		return nil, err
	}
	data := &dataAccess{props: cfg.fileIOProps(arn.Region), aws: &dataCfg, access: cfg.access(), local: cfg.local}
	mode := cfg.mode(ModeAuto)
	if mode == ModeNative {
		return newS3TablesNative(cfg, arn, catalogCfg, data, logger), nil
	}
	restCat, err := openS3TablesREST(ctx, cfg, arn, catalogCfg, data, logger)
	if err == nil || mode == ModeREST {
		return restCat, err
	}
	logger.Info("S3 Tables Iceberg REST endpoint not usable, using the native S3 Tables API",
		slog.String("uri", cfg.icebergRESTURI(svcS3Tables, arn.Region)), slog.String("error", err.Error()))
	return newS3TablesNative(cfg, arn, catalogCfg, data, logger), nil
}

func openS3TablesREST(ctx context.Context, cfg Config, arn TableBucketARN, catalogCfg aws.Config, data *dataAccess, logger *slog.Logger) (Catalog, error) {
	p := restParams{uri: cfg.icebergRESTURI(svcS3Tables, arn.Region), warehouse: arn.String(), sigService: svcS3Tables,
		sigRegion: arn.Region, awsCfg: &catalogCfg, fileRegion: arn.Region, access: awsaccess.S3TablesREST}
	cat, err := newREST(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	logger.Debug("opened S3 Tables through Iceberg REST", slog.String("uri", p.uri))
	return &icebergCatalog{cfg: cfg, cat: cat, logger: logger, resource: arn.String(), data: data, timeout: cfg.timeout(),
		access: awsaccess.S3TablesREST, identity: cfg.callerIdentity(catalogCfg)}, nil
}

// s3TablesNative is the pointer source of a table bucket, through the
// S3 Tables API (GetTableMetadataLocation).
type s3TablesNative struct {
	arn    TableBucketARN
	client *s3tables.Client
}

var _ pointerSource = (*s3TablesNative)(nil)

func newS3TablesNative(cfg Config, arn TableBucketARN, catalogCfg aws.Config, data *dataAccess, logger *slog.Logger) *pointerCatalog {
	client := s3tables.NewFromConfig(catalogCfg, func(o *s3tables.Options) {
		if ep := cfg.endpointFor(svcS3Tables); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	})
	logger.Debug("opened S3 Tables through the native API", slog.String("arn", arn.String()))
	return &pointerCatalog{cfg: cfg, src: &s3TablesNative{arn: arn, client: client}, data: data,
		access: awsaccess.S3TablesNative, resource: arn.String(), timeout: cfg.timeout(), identity: cfg.callerIdentity(catalogCfg)}
}

func (s *s3TablesNative) listNamespaces(ctx context.Context, page PageRequest) (Page[Namespace], error) {
	out, err := s.client.ListNamespaces(ctx, &s3tables.ListNamespacesInput{
		TableBucketARN: aws.String(s.arn.String()), ContinuationToken: token(page), MaxNamespaces: aws.Int32(int32(page.size())),
	})
	if err != nil {
		return Page[Namespace]{}, s.err("list namespaces in", s.arn.String(), hint(awsaccess.S3TablesNative, awsaccess.OpListNamespaces, err), err)
	}
	p := Page[Namespace]{Items: make([]Namespace, 0, len(out.Namespaces)), NextToken: aws.ToString(out.ContinuationToken)}
	for _, ns := range out.Namespaces {
		p.Items = append(p.Items, Namespace(ns.Namespace))
	}
	return p, nil
}

func (s *s3TablesNative) listTables(ctx context.Context, namespace []string, page PageRequest) (Page[TableIdent], error) {
	ns := strings.Join(namespace, ".")
	out, err := s.client.ListTables(ctx, &s3tables.ListTablesInput{
		TableBucketARN: aws.String(s.arn.String()), Namespace: aws.String(ns),
		ContinuationToken: token(page), MaxTables: aws.Int32(int32(page.size())),
	})
	if err != nil {
		return Page[TableIdent]{}, s.err("list tables in", s.arn.String()+" namespace "+ns, hint(awsaccess.S3TablesNative, awsaccess.OpListTables, err), err)
	}
	p := Page[TableIdent]{Items: make([]TableIdent, 0, len(out.Tables)), NextToken: aws.ToString(out.ContinuationToken)}
	for _, t := range out.Tables {
		p.Items = append(p.Items, TableIdent{Namespace: t.Namespace, Name: aws.ToString(t.Name)})
	}
	return p, nil
}

// locate asks GetTableMetadataLocation; a table nothing was committed to
// has no location yet.
func (s *s3TablesNative) locate(ctx context.Context, ident TableIdent) (string, error) {
	ns := strings.Join(ident.Namespace, ".")
	tableARN := s.arn.TableARN(ns, ident.Name)
	out, err := s.client.GetTableMetadataLocation(ctx, &s3tables.GetTableMetadataLocationInput{
		TableBucketARN: aws.String(s.arn.String()), Namespace: aws.String(ns), Name: aws.String(ident.Name),
	})
	if err != nil {
		return "", s.err("get table metadata location", tableARN, hint(awsaccess.S3TablesNative, awsaccess.OpLoadTable, err), err)
	}
	loc := aws.ToString(out.MetadataLocation)
	if loc == "" {
		return "", &Error{Op: "get table metadata location", Resource: tableARN, Kind: ErrBadMetadata,
			Err: errors.New("the table has no metadata location yet (nothing committed to it)")}
	}
	return loc, nil
}

// err wraps an S3 Tables API error; a missing bucket or table in the ARN's
// region also hints that the region may be wrong.
func (s *s3TablesNative) err(op, resource, perm string, err error) error {
	e := wrapErr(op, resource, perm, err)
	var ce *Error
	if errors.As(e, &ce) && errors.Is(ce.Kind, ErrNotFound) {
		ce.Err = errors.Join(ce.Err, errors.New("check the table bucket ARN (bucket name, account and region "+s.arn.Region+")"))
	}
	return e
}

func token(p PageRequest) *string {
	if p.Token == "" {
		return nil
	}
	return aws.String(p.Token)
}
