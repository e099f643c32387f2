package catalog_test

import (
	"strings"
	"testing"

	"github.com/floehq/floe/catalog"
)

func TestParseTableBucketARN(t *testing.T) {
	ok := []struct {
		in                      string
		region, account, bucket string
	}{
		{"arn:aws:s3tables:us-east-1:111122223333:bucket/my-lake", "us-east-1", "111122223333", "my-lake"},
		{"arn:aws-cn:s3tables:cn-north-1:111122223333:bucket/abc", "cn-north-1", "111122223333", "abc"},
	}
	for _, tc := range ok {
		a, err := catalog.ParseTableBucketARN(tc.in)
		if err != nil {
			t.Errorf("ParseTableBucketARN(%q): %v", tc.in, err)
			continue
		}
		if a.Region != tc.region || a.Account != tc.account || a.Bucket != tc.bucket || a.String() != tc.in {
			t.Errorf("ParseTableBucketARN(%q) = %+v", tc.in, a)
		}
	}
	bad := []struct{ in, want string }{
		{"", "want arn:aws:s3tables"},
		{"arn:aws:s3:us-east-1:111122223333:bucket/x1x", `service is "s3"`},
		{"arn:aws:s3tables:useast1:111122223333:bucket/abc", `region "useast1"`},
		{"arn:aws:s3tables:us-east-1:1111:bucket/abc", `account "1111"`},
		{"arn:aws:s3tables:us-east-1:111122223333:table/abc", `resource "table/abc"`},
		{"arn:aws:s3tables:us-east-1:111122223333:bucket/UPPER", `resource "bucket/UPPER"`},
		{"arn:gcp:s3tables:us-east-1:111122223333:bucket/abc", `partition "gcp"`},
	}
	for _, tc := range bad {
		_, err := catalog.ParseTableBucketARN(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.in) {
			t.Errorf("ParseTableBucketARN(%q) = %v, want an error naming the input and %s", tc.in, err, tc.want)
		}
	}
}
