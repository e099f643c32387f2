package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// TableBucketARN is a parsed Amazon S3 Tables table bucket ARN,
// arn:<partition>:s3tables:<region>:<account>:bucket/<name>.
type TableBucketARN struct {
	Partition string
	Region    string
	Account   string
	Bucket    string
}

var (
	regionPattern  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d+$`)
	accountPattern = regexp.MustCompile(`^\d{12}$`)
	bucketPattern  = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)
)

// ParseTableBucketARN parses and checks a table bucket ARN.
func ParseTableBucketARN(s string) (TableBucketARN, error) {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return TableBucketARN{}, fmt.Errorf("invalid S3 Tables ARN %q: want arn:aws:s3tables:<region>:<account>:bucket/<name>", s)
	}
	a := TableBucketARN{Partition: parts[1], Region: parts[3], Account: parts[4]}
	switch {
	case !strings.HasPrefix(a.Partition, "aws"):
		return TableBucketARN{}, fmt.Errorf("invalid S3 Tables ARN %q: partition %q is not an AWS partition", s, a.Partition)
	case parts[2] != "s3tables":
		return TableBucketARN{}, fmt.Errorf("invalid S3 Tables ARN %q: service is %q, want s3tables", s, parts[2])
	case !regionPattern.MatchString(a.Region):
		return TableBucketARN{}, fmt.Errorf("invalid S3 Tables ARN %q: region %q is not a region name", s, a.Region)
	case !accountPattern.MatchString(a.Account):
		return TableBucketARN{}, fmt.Errorf("invalid S3 Tables ARN %q: account %q is not a 12-digit account id", s, a.Account)
	}
	name, ok := strings.CutPrefix(parts[5], "bucket/")
	if !ok || !bucketPattern.MatchString(name) {
		return TableBucketARN{}, fmt.Errorf("invalid S3 Tables ARN %q: resource %q is not bucket/<name>", s, parts[5])
	}
	a.Bucket = name
	return a, nil
}

// String formats the ARN back.
func (a TableBucketARN) String() string {
	return "arn:" + a.Partition + ":s3tables:" + a.Region + ":" + a.Account + ":bucket/" + a.Bucket
}

// TableARN is the ARN of a table in the bucket (used in permission hints).
func (a TableBucketARN) TableARN(namespace, name string) string {
	return a.String() + "/table/" + namespace + "/" + name
}
