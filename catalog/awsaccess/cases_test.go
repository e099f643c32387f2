package awsaccess_test

import (
	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/awsaccess"
)

// connCase is one connection of each kind floe reaches AWS with, and the
// generator options a user would give for it.
type connCase struct {
	name string
	cfg  catalog.Config
	opts awsaccess.Options
}

const (
	bucketARN = "arn:aws:s3tables:us-east-1:111122223333:bucket/lake"
	readerARN = "arn:aws:iam::111122223333:role/floe-lake-reader"
	floeRole  = "arn:aws:iam::999988887777:role/floe-service"
	keyARN    = "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
)

func conn(name, typ string, props map[string]string) catalog.Config {
	return catalog.Config{Name: name, Type: typ, Props: props}
}

// cases covers every connection type floe generates access for: s3tables native and
// REST, glue native and REST, rest with SigV4 (API Gateway and S3 Tables),
// hadoop on s3://, and a two-hop chain.
func cases() []connCase {
	role := func(p map[string]string) map[string]string {
		p[catalog.PropRoleARN], p[catalog.PropExternalID] = readerARN, "floe-ext-7f3a"
		return p
	}
	return []connCase{
		{"s3tables-native", conn("lake", catalog.TypeS3Tables, role(map[string]string{catalog.PropARN: bucketARN, catalog.PropMode: "native"})),
			awsaccess.Options{TrustedPrincipal: "999988887777", KMSKeys: []string{keyARN}, Notifications: &awsaccess.Notifications{}}},
		{"s3tables-rest", conn("lake", catalog.TypeS3Tables, role(map[string]string{catalog.PropARN: bucketARN})),
			awsaccess.Options{TrustedPrincipal: floeRole, DeepStore: "s3://pinot-deep/segments"}},
		{"glue-native", conn("glue", catalog.TypeGlue, role(map[string]string{catalog.PropRegion: "us-east-1", catalog.PropCatalogID: "111122223333"})),
			awsaccess.Options{TrustedPrincipal: floeRole, Data: []string{"s3://lake-data/warehouse/sales", "s3://lake-data/warehouse/hr", "s3://other-data"},
				Databases: []string{"sales", "hr"}, LakeFormation: true, KMSKeys: []string{keyARN}, Notifications: &awsaccess.Notifications{}}},
		{"glue-rest", conn("glue", catalog.TypeGlue, role(map[string]string{catalog.PropRegion: "eu-west-1", catalog.PropMode: "rest"})),
			awsaccess.Options{TrustedPrincipal: floeRole, Data: []string{"s3://lake-data/warehouse"}, DeepStore: "s3://pinot-deep/segments",
				Notifications: &awsaccess.Notifications{QueueARN: "arn:aws:sqs:eu-west-1:111122223333:lake-events"}}},
		{"rest-sigv4-apigateway", conn("api", catalog.TypeREST, role(map[string]string{catalog.PropURI: "https://a1b2c3d4e5.execute-api.us-west-2.amazonaws.com/prod",
			catalog.PropSigV4: "true", catalog.PropRegion: "us-west-2"})),
			awsaccess.Options{TrustedPrincipal: floeRole, Data: []string{"s3://api-lake/wh"}}},
		{"rest-sigv4-s3tables", conn("tables", catalog.TypeREST, role(map[string]string{catalog.PropURI: "https://s3tables.us-east-1.amazonaws.com/iceberg",
			catalog.PropSigV4: "true", catalog.PropSigningName: "s3tables", catalog.PropRegion: "us-east-1", catalog.PropWarehouse: bucketARN})),
			awsaccess.Options{TrustedPrincipal: floeRole}},
		{"hadoop-s3", conn("files", catalog.TypeHadoop, role(map[string]string{catalog.PropWarehouse: "s3://lake-files/wh", catalog.PropRegion: "us-east-1"})),
			awsaccess.Options{TrustedPrincipal: "arn:aws:iam::999988887777:user/floe", DeepStore: "s3://lake-files/pinot",
				Notifications: &awsaccess.Notifications{QueueName: "lake-files-commits"}}},
		{"glue-two-hop", conn("xacct", catalog.TypeGlue, role(map[string]string{catalog.PropRegion: "us-east-1",
			catalog.PropViaRoleARN: floeRole, catalog.PropViaExternalID: "floe-own-ext"})),
			awsaccess.Options{TrustedPrincipal: "999988887777", Data: []string{"s3://lake-data/warehouse"}}},
	}
}
