package catalog

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3tables"

	"github.com/floehq/floe/catalog/awsaccess"
)

// s3TablesRESTURI is the S3 Tables Iceberg REST endpoint: the s3tables
// endpoint override + "/iceberg", else the regional AWS endpoint.
func (c Config) s3TablesRESTURI(region string) string {
	if ep := c.endpointFor(svcS3Tables); ep != "" {
		return strings.TrimRight(ep, "/") + "/iceberg"
	}
	return "https://s3tables." + region + ".amazonaws.com/iceberg"
}

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
		slog.String("uri", cfg.s3TablesRESTURI(arn.Region)), slog.String("error", err.Error()))
	return newS3TablesNative(cfg, arn, catalogCfg, data, logger), nil
}

func openS3TablesREST(ctx context.Context, cfg Config, arn TableBucketARN, catalogCfg aws.Config, data *dataAccess, logger *slog.Logger) (Catalog, error) {
	p := restParams{uri: cfg.s3TablesRESTURI(arn.Region), warehouse: arn.String(), sigService: svcS3Tables,
		sigRegion: arn.Region, awsCfg: &catalogCfg, fileRegion: arn.Region, access: awsaccess.S3TablesREST}
	cat, err := newREST(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	logger.Debug("opened S3 Tables through Iceberg REST", slog.String("uri", p.uri))
	return &icebergCatalog{cfg: cfg, cat: cat, logger: logger, resource: arn.String(), data: data, timeout: cfg.timeout(),
		access: awsaccess.S3TablesREST, identity: cfg.callerIdentity(catalogCfg)}, nil
}

// s3TablesNative reads a table bucket through the S3 Tables API.
type s3TablesNative struct {
	cfg      Config
	arn      TableBucketARN
	client   *s3tables.Client
	data     *dataAccess
	logger   *slog.Logger
	timeout  time.Duration
	identity identityCheck
}

var _ Catalog = (*s3TablesNative)(nil)

func newS3TablesNative(cfg Config, arn TableBucketARN, catalogCfg aws.Config, data *dataAccess, logger *slog.Logger) *s3TablesNative {
	client := s3tables.NewFromConfig(catalogCfg, func(o *s3tables.Options) {
		if ep := cfg.endpointFor(svcS3Tables); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	})
	logger.Debug("opened S3 Tables through the native API", slog.String("arn", arn.String()))
	return &s3TablesNative{cfg: cfg, arn: arn, client: client, data: data, logger: logger, timeout: cfg.timeout(),
		identity: cfg.callerIdentity(catalogCfg)}
}

func (s *s3TablesNative) ListNamespaces(ctx context.Context, parent []string, page PageRequest) (Page[Namespace], error) {
	if len(parent) > 0 { // S3 Tables namespaces have one level
		return Page[Namespace]{Items: []Namespace{}}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
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

func (s *s3TablesNative) ListTables(ctx context.Context, namespace []string, page PageRequest) (Page[TableIdent], error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
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

func (s *s3TablesNative) LoadTable(ctx context.Context, ident TableIdent) (*Table, error) {
	if err := ident.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ns := strings.Join(ident.Namespace, ".")
	tableARN := s.arn.TableARN(ns, ident.Name)
	out, err := s.client.GetTableMetadataLocation(ctx, &s3tables.GetTableMetadataLocationInput{
		TableBucketARN: aws.String(s.arn.String()), Namespace: aws.String(ns), Name: aws.String(ident.Name),
	})
	if err != nil {
		return nil, s.err("get table metadata location", tableARN, hint(awsaccess.S3TablesNative, awsaccess.OpLoadTable, err), err)
	}
	loc := aws.ToString(out.MetadataLocation)
	if loc == "" {
		return nil, &Error{Op: "get table metadata location", Resource: tableARN, Kind: ErrBadMetadata,
			Err: errors.New("the table has no metadata location yet (nothing committed to it)")}
	}
	tbl, err := s.data.loadFromLocation(ctx, ident, loc)
	if err != nil {
		return nil, err
	}
	return s.cfg.newTable(ident, tbl), nil
}

func (s *s3TablesNative) Describe(ctx context.Context, ident TableIdent) (TableInfo, error) {
	t, err := s.LoadTable(ctx, ident)
	if err != nil {
		return TableInfo{}, err
	}
	return t.Info(), nil
}

func (s *s3TablesNative) Validate(ctx context.Context) Report {
	return validate(ctx, s, awsaccess.S3TablesNative, s.arn.String(), s.identity)
}

func (s *s3TablesNative) Close() error { return nil }

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
