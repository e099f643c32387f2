package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/floehq/floe/catalog/awsaccess"
)

// icebergRESTURI is an AWS service's Iceberg REST endpoint (Glue's, S3
// Tables'): the service's endpoint override + "/iceberg", else the
// regional AWS endpoint.
func (c Config) icebergRESTURI(svc, region string) string {
	if ep := c.endpointFor(svc); ep != "" {
		return strings.TrimRight(ep, "/") + "/iceberg"
	}
	return "https://" + svc + "." + region + ".amazonaws.com/iceberg"
}

// openGlue opens an AWS Glue Data Catalog, natively (GetTable →
// Parameters.metadata_location) or through Glue's Iceberg REST endpoint
// (SigV4 service glue, warehouse = catalog id or account id).
func openGlue(ctx context.Context, cfg Config, logger *slog.Logger) (Catalog, error) {
	region := cfg.prop(PropRegion)
	catalogCfg, dataCfg, err := cfg.awsSides(ctx, region)
	if err != nil {
		return nil, err
	}
	data := &dataAccess{props: cfg.fileIOProps(region), aws: &dataCfg, access: cfg.access(), local: cfg.local}
	if cfg.mode(ModeNative) == ModeNative {
		return newGlueNative(cfg, catalogCfg, data, logger), nil
	}
	wh, err := glueWarehouse(ctx, cfg, catalogCfg)
	if err != nil {
		return nil, err
	}
	p := restParams{uri: cfg.icebergRESTURI(svcGlue, region), warehouse: wh, sigService: svcGlue, sigRegion: region,
		awsCfg: &catalogCfg, fileRegion: region, access: awsaccess.GlueREST}
	cat, err := newREST(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	logger.Debug("opened Glue through Iceberg REST", slog.String("uri", p.uri), slog.String("warehouse", wh))
	return &icebergCatalog{cfg: cfg, cat: cat, logger: logger, resource: "glue catalog " + wh, data: data,
		timeout: cfg.timeout(), access: awsaccess.GlueREST, identity: cfg.callerIdentity(catalogCfg)}, nil
}

// glueWarehouse is the REST warehouse: props warehouse, catalog-id, or the
// caller's account id (STS GetCallerIdentity).
func glueWarehouse(ctx context.Context, cfg Config, awsCfg aws.Config) (string, error) {
	if wh := cfg.prop(PropWarehouse); wh != "" {
		return wh, nil
	}
	if id := cfg.prop(PropCatalogID); id != "" {
		return id, nil
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	out, err := sts.NewFromConfig(awsCfg, func(o *sts.Options) {
		if ep := cfg.endpointFor(svcSTS); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	}).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", wrapErr("get caller account for the Glue warehouse", "", "sts:GetCallerIdentity", err)
	}
	return aws.ToString(out.Account), nil
}

// glueNative is the pointer source of a Glue Data Catalog: databases are
// namespaces, Iceberg tables carry their metadata pointer in the
// metadata_location parameter.
type glueNative struct {
	client    *glue.Client
	catalogID *string
}

var _ pointerSource = (*glueNative)(nil)

func newGlueNative(cfg Config, awsCfg aws.Config, data *dataAccess, logger *slog.Logger) *pointerCatalog {
	client := glue.NewFromConfig(awsCfg, func(o *glue.Options) {
		if ep := cfg.endpointFor(svcGlue); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	})
	g := &glueNative{client: client}
	if id := cfg.prop(PropCatalogID); id != "" {
		g.catalogID = aws.String(id)
	}
	logger.Debug("opened Glue through the native API", slog.String("region", awsCfg.Region))
	return &pointerCatalog{cfg: cfg, src: g, data: data, access: awsaccess.GlueNative, resource: g.resource(),
		timeout: cfg.timeout(), identity: cfg.callerIdentity(awsCfg)}
}

func (g *glueNative) resource(parts ...string) string {
	r := "glue catalog"
	if g.catalogID != nil {
		r += " " + *g.catalogID
	}
	if len(parts) > 0 {
		r += " " + strings.Join(parts, ".")
	}
	return r
}

func (g *glueNative) listNamespaces(ctx context.Context, page PageRequest) (Page[Namespace], error) {
	out, err := g.client.GetDatabases(ctx, &glue.GetDatabasesInput{CatalogId: g.catalogID, NextToken: token(page),
		MaxResults: aws.Int32(int32(min(page.size(), 100)))})
	if err != nil {
		return Page[Namespace]{}, wrapErr("list databases in", g.resource(), hint(awsaccess.GlueNative, awsaccess.OpListNamespaces, err), err)
	}
	p := Page[Namespace]{Items: make([]Namespace, 0, len(out.DatabaseList)), NextToken: aws.ToString(out.NextToken)}
	for _, db := range out.DatabaseList {
		p.Items = append(p.Items, Namespace{aws.ToString(db.Name)})
	}
	return p, nil
}

// listTables lists the Iceberg tables of a database (other tables are
// left out, so a page may hold fewer than Size items).
func (g *glueNative) listTables(ctx context.Context, namespace []string, page PageRequest) (Page[TableIdent], error) {
	db := strings.Join(namespace, ".")
	out, err := g.client.GetTables(ctx, &glue.GetTablesInput{CatalogId: g.catalogID, DatabaseName: aws.String(db),
		NextToken: token(page), MaxResults: aws.Int32(int32(min(page.size(), 100)))})
	if err != nil {
		return Page[TableIdent]{}, wrapErr("list tables in", g.resource(db), hint(awsaccess.GlueNative, awsaccess.OpListTables, err), err)
	}
	p := Page[TableIdent]{Items: []TableIdent{}, NextToken: aws.ToString(out.NextToken)}
	for _, t := range out.TableList {
		if strings.EqualFold(t.Parameters["table_type"], "ICEBERG") {
			p.Items = append(p.Items, TableIdent{Namespace: []string{db}, Name: aws.ToString(t.Name)})
		}
	}
	return p, nil
}

// locate reads the table's metadata_location parameter (GetTable).
func (g *glueNative) locate(ctx context.Context, ident TableIdent) (string, error) {
	db := strings.Join(ident.Namespace, ".")
	res := g.resource(db, ident.Name)
	out, err := g.client.GetTable(ctx, &glue.GetTableInput{CatalogId: g.catalogID, DatabaseName: aws.String(db), Name: aws.String(ident.Name)})
	if err != nil {
		return "", wrapErr("get table", res, hint(awsaccess.GlueNative, awsaccess.OpLoadTable, err), err)
	}
	loc, err := glueMetadataLocation(out.Table.Parameters)
	if err != nil {
		return "", &Error{Op: "get table", Resource: res, Kind: ErrBadMetadata, Err: err}
	}
	return loc, nil
}

// glueMetadataLocation checks a Glue table's Iceberg parameters.
func glueMetadataLocation(params map[string]string) (string, error) {
	if tt := params["table_type"]; !strings.EqualFold(tt, "ICEBERG") {
		return "", fmt.Errorf("not an Iceberg table: table parameter table_type is %q, want ICEBERG", tt)
	}
	loc, ok := params["metadata_location"]
	if !ok || strings.TrimSpace(loc) == "" {
		return "", errors.New("table parameter metadata_location is missing: the table has no Iceberg metadata pointer")
	}
	u, err := url.Parse(loc)
	if err != nil || u.Scheme == "" || u.Path == "" || !strings.HasSuffix(loc, ".metadata.json") && !strings.HasSuffix(loc, ".metadata.json.gz") {
		return "", fmt.Errorf("table parameter metadata_location %q is malformed: want a URL such as s3://bucket/path/00001-<uuid>.metadata.json", loc)
	}
	return loc, nil
}
