package awsaccess

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/smithy-go"
)

// Access is how floe reaches a catalog and its files, as far as IAM is
// concerned. The catalog package resolves it from a connection's type and
// props (catalog.Config.AWSAccess).
type Access string

// Access kinds.
const (
	// None: nothing floe does goes through AWS IAM (local files, a SQL
	// database, a REST catalog with its own auth and non-S3 storage).
	None Access = ""
	// S3TablesNative: the S3 Tables API, then the table files.
	S3TablesNative Access = "s3tables-native"
	// S3TablesREST: the S3 Tables Iceberg REST endpoint (SigV4 s3tables).
	// Mode auto uses it too: its permissions include the native ones.
	S3TablesREST Access = "s3tables-rest"
	// GlueNative: the Glue API (GetTable → metadata_location), then S3.
	GlueNative Access = "glue-native"
	// GlueREST: Glue's Iceberg REST endpoint (SigV4 glue), then S3.
	GlueREST Access = "glue-rest"
	// RESTSigV4: an Iceberg REST catalog behind API Gateway (SigV4
	// execute-api), then S3.
	RESTSigV4 Access = "rest-sigv4"
	// HadoopS3: a Hadoop-layout warehouse on s3://, found by listing.
	HadoopS3 Access = "hadoop-s3"
	// DataOnly: the catalog is not on AWS (REST without SigV4, SQL) but the
	// table files are on S3.
	DataOnly Access = "s3-data"
)

// Op is one thing floe does with a catalog; each validation step is one.
type Op string

// Operations.
const (
	OpConnect        Op = "connect"          // open the catalog (REST: GET /v1/config)
	OpListNamespaces Op = "list namespaces"  // browse, validate
	OpListTables     Op = "list tables"      // browse, validate
	OpLoadTable      Op = "load table"       // the metadata pointer and metadata file
	OpReadData       Op = "read data"        // manifests, data and delete files
	OpWriteDeepStore Op = "write deep store" // segments written to the Pinot deep store
)

// Ops lists every operation in the order a sync meets them.
func Ops() []Op {
	return []Op{OpConnect, OpListNamespaces, OpListTables, OpLoadTable, OpReadData, OpWriteDeepStore}
}

// Resource names which ARNs an action is granted on; Generate turns each
// into concrete ARNs from the connection and the options.
type Resource int

// Resources.
const (
	ResTableBucket      Resource = iota // arn:…:s3tables:…:bucket/<name>
	ResTables                           // arn:…:s3tables:…:bucket/<name>/table/*
	ResGlueCatalog                      // arn:…:glue:…:catalog
	ResGlueAllDatabases                 // arn:…:glue:…:database/*
	ResGlueDatabases                    // database/<db> for each -database, else database/*
	ResGlueTables                       // table/<db>/* for each -database, else table/*/*
	ResAPI                              // arn:…:execute-api:…:<api>/<stage>/GET/*
	ResDataBucket                       // arn:…:s3:::<bucket>, s3:prefix condition
	ResDataObjects                      // arn:…:s3:::<bucket>/<prefix>/*
	ResDeepStoreBucket                  // the deep store bucket, s3:prefix condition
	ResDeepStoreObjects                 // the deep store prefix
)

// Permission is one IAM action, the resources it is granted on and the
// AWS API calls that need it ("Service.Operation", as the AWS SDK names
// them), so a denied call can be traced back to its action.
type Permission struct {
	Action    string
	Resources []Resource
	Calls     []string
}

// Row is what one operation needs under one access kind.
type Row struct {
	Access Access
	Op     Op
	Perms  []Permission
}

// Table is the permission table: per access kind and operation, the IAM
// actions floe needs. Generate emits exactly these (plus the options'
// extras: KMS, Lake Formation), and catalog's validate names a missing
// permission from them (Missing), so the two cannot drift apart.
//
// s3:ListBucket on data prefixes is granted for reads too although floe
// never lists them outside Hadoop warehouses: without it S3 answers 403
// instead of 404 for a missing file, and floe could not tell a deleted
// metadata file from a missing permission.
func Table() []Row {
	s3Read := Permission{"s3:GetObject", []Resource{ResDataObjects}, []string{"S3.GetObject", "S3.HeadObject"}}
	s3List := Permission{"s3:ListBucket", []Resource{ResDataBucket}, []string{"S3.ListObjectsV2", "S3.ListObjects"}}
	tablesData := Permission{"s3tables:GetTableData", []Resource{ResTables}, []string{"S3.GetObject", "S3.HeadObject"}}
	tablesMeta := Permission{"s3tables:GetTableMetadataLocation", []Resource{ResTables}, []string{"S3Tables.GetTableMetadataLocation"}}
	glueTables := []Resource{ResGlueCatalog, ResGlueDatabases, ResGlueTables}
	apiInvoke := Permission{"execute-api:Invoke", []Resource{ResAPI}, nil}
	deepStoreObj := []Resource{ResDeepStoreObjects}
	deep := []Permission{
		{"s3:PutObject", deepStoreObj, []string{"S3.PutObject", "S3.CreateMultipartUpload", "S3.UploadPart", "S3.CompleteMultipartUpload"}},
		{"s3:GetObject", deepStoreObj, []string{"S3.GetObject", "S3.HeadObject"}},
		{"s3:DeleteObject", deepStoreObj, []string{"S3.DeleteObject", "S3.DeleteObjects"}},
		{"s3:ListBucket", []Resource{ResDeepStoreBucket}, []string{"S3.ListObjectsV2", "S3.ListObjects"}},
	}
	rows := []Row{
		{S3TablesNative, OpListNamespaces, []Permission{{"s3tables:ListNamespaces", []Resource{ResTableBucket}, []string{"S3Tables.ListNamespaces"}}}},
		{S3TablesNative, OpListTables, []Permission{{"s3tables:ListTables", []Resource{ResTableBucket}, []string{"S3Tables.ListTables"}}}},
		{S3TablesNative, OpLoadTable, []Permission{tablesMeta, tablesData}},
		{S3TablesNative, OpReadData, []Permission{tablesData}},

		{S3TablesREST, OpConnect, []Permission{{"s3tables:GetTableBucket", []Resource{ResTableBucket}, nil}}},
		{S3TablesREST, OpListNamespaces, []Permission{{"s3tables:ListNamespaces", []Resource{ResTableBucket}, []string{"S3Tables.ListNamespaces"}}}},
		{S3TablesREST, OpListTables, []Permission{{"s3tables:ListTables", []Resource{ResTableBucket}, []string{"S3Tables.ListTables"}}}},
		{S3TablesREST, OpLoadTable, []Permission{tablesMeta, tablesData}},
		{S3TablesREST, OpReadData, []Permission{tablesData}},

		{GlueNative, OpListNamespaces, []Permission{{"glue:GetDatabases", []Resource{ResGlueCatalog, ResGlueAllDatabases}, []string{"Glue.GetDatabases"}}}},
		{GlueNative, OpListTables, []Permission{{"glue:GetTables", glueTables, []string{"Glue.GetTables"}}}},
		{GlueNative, OpLoadTable, []Permission{{"glue:GetTable", glueTables, []string{"Glue.GetTable"}}, s3Read, s3List}},
		{GlueNative, OpReadData, []Permission{s3Read, s3List}},

		{GlueREST, OpConnect, []Permission{{"glue:GetCatalog", []Resource{ResGlueCatalog}, nil}}},
		{GlueREST, OpListNamespaces, []Permission{{"glue:GetDatabases", []Resource{ResGlueCatalog, ResGlueAllDatabases}, nil}}},
		{GlueREST, OpListTables, []Permission{{"glue:GetTables", glueTables, nil}}},
		{GlueREST, OpLoadTable, []Permission{{"glue:GetTable", glueTables, nil}}},
		{GlueREST, OpReadData, []Permission{s3Read, s3List}},

		{RESTSigV4, OpConnect, []Permission{apiInvoke}},
		{RESTSigV4, OpListNamespaces, []Permission{apiInvoke}},
		{RESTSigV4, OpListTables, []Permission{apiInvoke}},
		{RESTSigV4, OpLoadTable, []Permission{apiInvoke}},
		{RESTSigV4, OpReadData, []Permission{s3Read, s3List}},

		{HadoopS3, OpListNamespaces, []Permission{s3List}},
		{HadoopS3, OpListTables, []Permission{s3List, s3Read}}, // the namespace is checked with a HEAD
		{HadoopS3, OpLoadTable, []Permission{s3List, s3Read}},
		{HadoopS3, OpReadData, []Permission{s3Read}},

		{DataOnly, OpReadData, []Permission{s3Read, s3List}},
	}
	for _, a := range []Access{S3TablesNative, S3TablesREST, GlueNative, GlueREST, RESTSigV4, HadoopS3, DataOnly} {
		rows = append(rows, Row{a, OpWriteDeepStore, deep})
	}
	return rows
}

// Permissions returns what op needs under access (nil when nothing).
func Permissions(access Access, op Op) []Permission {
	for _, r := range Table() {
		if r.Access == access && r.Op == op {
			return r.Perms
		}
	}
	return nil
}

// Actions returns the IAM actions op needs under access, in table order.
func Actions(access Access, op Op) []string {
	var out []string
	for _, p := range Permissions(access, op) {
		if !slices.Contains(out, p.Action) {
			out = append(out, p.Action)
		}
	}
	return out
}

// performPattern finds the action AWS names in an AccessDenied message
// ("... is not authorized to perform: glue:GetTable on resource ...").
var performPattern = regexp.MustCompile(`perform: ([a-z0-9-]+:[A-Za-z0-9]+)`)

// Missing names the permission a failed op lacks, from the table: the
// action AWS names in the error when it does; else the action whose calls
// include the failed AWS API call; else the op's only action; else its
// actions joined with " or ". "" when the table has nothing for op.
func Missing(access Access, op Op, err error) string {
	perms := Permissions(access, op)
	if len(perms) == 0 {
		return ""
	}
	actions := Actions(access, op)
	if err != nil {
		if m := performPattern.FindStringSubmatch(err.Error()); m != nil && slices.Contains(actions, m[1]) {
			return m[1]
		}
		var oe *smithy.OperationError
		if errors.As(err, &oe) {
			call := oe.Service() + "." + oe.Operation()
			for _, p := range perms {
				if slices.Contains(p.Calls, call) {
					return p.Action
				}
			}
		}
	}
	if len(actions) == 1 {
		return actions[0]
	}
	return strings.Join(actions, " or ")
}
