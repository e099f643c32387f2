package awsaccess_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/floehq/floe/catalog/awsaccess"
)

func opErr(service, op string) error {
	return fmt.Errorf("read file: %w", &smithy.OperationError{ServiceID: service, OperationName: op, Err: errors.New("api error AccessDenied: Access Denied")})
}

// Missing names the one action a denied call lacks, from the table.
func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		access awsaccess.Access
		op     awsaccess.Op
		err    error
		want   string
	}{
		{"aws names the action", awsaccess.GlueNative, awsaccess.OpLoadTable,
			errors.New("User: arn:aws:sts::1:assumed-role/r/s is not authorized to perform: glue:GetTable on resource: x"), "glue:GetTable"},
		{"failed S3 read", awsaccess.GlueNative, awsaccess.OpLoadTable, opErr("S3", "HeadObject"), "s3:GetObject"},
		{"failed S3 listing", awsaccess.HadoopS3, awsaccess.OpLoadTable, opErr("S3", "ListObjectsV2"), "s3:ListBucket"},
		{"S3 read of a table bucket", awsaccess.S3TablesNative, awsaccess.OpLoadTable, opErr("S3", "GetObject"), "s3tables:GetTableData"},
		{"S3 Tables API", awsaccess.S3TablesNative, awsaccess.OpLoadTable, opErr("S3Tables", "GetTableMetadataLocation"), "s3tables:GetTableMetadataLocation"},
		{"one action", awsaccess.GlueNative, awsaccess.OpListTables, errors.New("403"), "glue:GetTables"},
		{"REST connect", awsaccess.S3TablesREST, awsaccess.OpConnect, errors.New("forbidden"), "s3tables:GetTableBucket"},
		{"ambiguous", awsaccess.HadoopS3, awsaccess.OpLoadTable, errors.New("Access Denied"), "s3:ListBucket or s3:GetObject"},
		{"nothing in the table", awsaccess.None, awsaccess.OpListTables, errors.New("denied"), ""},
		{"action outside the op", awsaccess.GlueNative, awsaccess.OpListTables,
			errors.New("not authorized to perform: glue:GetTable"), "glue:GetTables"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := awsaccess.Missing(tc.access, tc.op, tc.err); got != tc.want {
				t.Errorf("Missing(%s, %s, %v) = %q, want %q", tc.access, tc.op, tc.err, got, tc.want)
			}
		})
	}
}

// Every access kind can at least read data; every row's permissions name
// resources; catalog kinds list and load.
func TestTable_Complete(t *testing.T) {
	kinds := []awsaccess.Access{awsaccess.S3TablesNative, awsaccess.S3TablesREST, awsaccess.GlueNative, awsaccess.GlueREST,
		awsaccess.RESTSigV4, awsaccess.HadoopS3, awsaccess.DataOnly}
	for _, k := range kinds {
		ops := []awsaccess.Op{awsaccess.OpReadData, awsaccess.OpWriteDeepStore}
		if k != awsaccess.DataOnly {
			ops = append(ops, awsaccess.OpListNamespaces, awsaccess.OpListTables, awsaccess.OpLoadTable)
		}
		for _, op := range ops {
			if len(awsaccess.Actions(k, op)) == 0 {
				t.Errorf("%s %s: no actions", k, op)
			}
		}
	}
	for _, r := range awsaccess.Table() {
		if !slices.Contains(kinds, r.Access) || !slices.Contains(awsaccess.Ops(), r.Op) {
			t.Errorf("row %s %s: unknown kind or op", r.Access, r.Op)
		}
		for _, p := range r.Perms {
			if len(p.Resources) == 0 {
				t.Errorf("row %s %s: %s has no resource", r.Access, r.Op, p.Action)
			}
		}
	}
}
