package catalog

import (
	"strconv"
	"strings"

	"github.com/floehq/floe/catalog/awsaccess"
)

// AWSAccess describes the connection for the AWS access generator: how it
// reaches AWS (the permission table's access kind) and the resources it
// names. Call it on a config that passed Validate.
func (c Config) AWSAccess() awsaccess.Connection {
	conn := awsaccess.Connection{
		Name: c.Name, Type: c.Type, Access: c.access(), Region: c.prop(PropRegion),
		RoleARN: c.prop(PropRoleARN), ExternalID: c.prop(PropExternalID),
		ViaRoleARN: c.prop(PropViaRoleARN), ViaExternalID: c.prop(PropViaExternalID),
		SeparateData: c.hasDataCreds(),
	}
	switch c.Type {
	case TypeS3Tables:
		if arn, err := ParseTableBucketARN(c.prop(PropARN)); err == nil {
			conn.TableBucket, conn.Region, conn.Account, conn.Partition = arn.String(), arn.Region, arn.Account, arn.Partition
		}
	case TypeGlue:
		conn.Account, _, _ = strings.Cut(c.prop(PropCatalogID), ":")
	case TypeREST:
		conn.APIURI, conn.Warehouse = c.prop(PropURI), c.prop(PropWarehouse)
		if c.access() == awsaccess.S3TablesREST {
			if arn, err := ParseTableBucketARN(conn.Warehouse); err == nil {
				conn.TableBucket, conn.Region, conn.Account, conn.Partition = arn.String(), arn.Region, arn.Account, arn.Partition
			}
		}
		if r := c.prop(PropSigningRegion); r != "" {
			conn.Region = r
		}
		if c.access() == awsaccess.GlueREST && accountPattern.MatchString(conn.Warehouse) {
			conn.Account = conn.Warehouse
		}
	default:
		conn.Warehouse = c.prop(PropWarehouse)
	}
	return conn
}

// access is the connection's access kind in the permission table.
func (c Config) access() awsaccess.Access {
	switch c.Type {
	case TypeS3Tables:
		if c.mode(ModeAuto) == ModeNative {
			return awsaccess.S3TablesNative
		}
		return awsaccess.S3TablesREST
	case TypeGlue:
		if c.mode(ModeNative) == ModeREST {
			return awsaccess.GlueREST
		}
		return awsaccess.GlueNative
	case TypeREST:
		if sig, _ := strconv.ParseBool(c.prop(PropSigV4)); sig {
			switch c.prop(PropSigningName) {
			case svcS3Tables:
				return awsaccess.S3TablesREST
			case svcGlue:
				return awsaccess.GlueREST
			case "", "execute-api":
				return awsaccess.RESTSigV4
			}
			return awsaccess.None
		}
	case TypeHadoop:
		if strings.HasPrefix(c.prop(PropWarehouse), "s3") {
			return awsaccess.HadoopS3
		}
		return awsaccess.None
	}
	if strings.HasPrefix(c.prop(PropWarehouse), "s3") || c.usesAWSCreds() {
		return awsaccess.DataOnly
	}
	return awsaccess.None
}

// hint names the permission op lacks when err is a denial, from the
// permission table. Only AWS paths get one: a local or non-S3 file is not
// an IAM matter.
func hint(access awsaccess.Access, op awsaccess.Op, err error) string {
	return awsaccess.Missing(access, op, err)
}

// dataHint is hint for a file read: only s3:// files are an IAM matter.
func dataHint(access awsaccess.Access, op awsaccess.Op, path string, err error) string {
	if !strings.HasPrefix(path, "s3://") && !strings.HasPrefix(path, "s3a://") {
		return ""
	}
	return hint(access, op, err)
}
