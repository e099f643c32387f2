package pinot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/floehq/floe/internal/egress"
)

// S3Location is where an S3 or S3-compatible deep store is and whose
// keys reach it; floe's configuration file holds it as pinot.deepStore
// (hence the yaml tags). The credentials are never printed.
type S3Location struct {
	// URI is s3://bucket[/prefix]; tarballs go to <URI>/<table>/<segment>.tar.gz.
	URI    string `yaml:"uri"`
	Region string `yaml:"region"`
	// Endpoint overrides the S3 endpoint (an S3-compatible store); "" is AWS.
	Endpoint string `yaml:"endpoint"`
	// PathStyle addresses buckets as <endpoint>/<bucket>/<key> instead of
	// <bucket>.<endpoint>/<key> (most S3-compatible stores want it).
	PathStyle bool `yaml:"pathStyle"`
	// Static credentials; empty AccessKeyID means the AWS default chain
	// (environment, shared files, web identity, instance role).
	AccessKeyID     string `yaml:"accessKeyID"`
	SecretAccessKey string `yaml:"secretAccessKey"`
	SessionToken    string `yaml:"sessionToken"`
}

// S3Options configures an S3 or S3-compatible deep store.
type S3Options struct {
	S3Location
	Retry RetryPolicy
	// Egress decides the addresses the store may be reached at (checked
	// at every dial, after name resolution); nil refuses none. Either way
	// no redirect to another origin is followed.
	Egress *egress.Policy
}

// S3DeepStore is a DeepStore on S3. The SDK's own retries are off: every
// attempt goes through RetryPolicy and the write guard.
type S3DeepStore struct {
	bucket string
	prefix string // no leading or trailing slash; may be ""
	client *s3.Client
	retry  RetryPolicy
}

var _ DeepStore = (*S3DeepStore)(nil)

// ParseS3URI splits s3://bucket/prefix into bucket and prefix.
func ParseS3URI(uri string) (bucket, prefix string, err error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return "", "", fmt.Errorf("parse deep store URI %q: want s3://bucket[/prefix]", uri)
	}
	return u.Host, strings.Trim(u.Path, "/"), nil
}

// NewS3DeepStore returns a deep store for opts. Credentials are resolved
// lazily, at the first request.
func NewS3DeepStore(ctx context.Context, opts S3Options) (*S3DeepStore, error) {
	bucket, prefix, err := ParseS3URI(opts.URI)
	if err != nil {
		return nil, err
	}
	load := []func(*config.LoadOptions) error{config.WithRegion(opts.Region)}
	if opts.AccessKeyID != "" {
		load = append(load, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(
			opts.AccessKeyID, opts.SecretAccessKey, opts.SessionToken)))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("load AWS config for deep store s3://%s: %w", bucket, err)
	}
	if b, ok := cfg.HTTPClient.(*awshttp.BuildableClient); ok {
		scrub := newScrubber(map[string]string{"k": opts.AccessKeyID, "s": opts.SecretAccessKey, "t": opts.SessionToken}).scrub
		cfg.HTTPClient = opts.Egress.Client(egress.DeepStore, b.GetTransport(), &net.Dialer{Timeout: 30 * time.Second}, b.GetTimeout(), scrub)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.Retryer = aws.NopRetryer{}
		o.UsePathStyle = opts.PathStyle
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
	})
	retry := opts.Retry
	if retry.Attempts == 0 {
		retry = DefaultRetryPolicy()
	}
	return &S3DeepStore{bucket: bucket, prefix: prefix, client: client, retry: retry}, nil
}

func (s *S3DeepStore) key(table, segment string) string {
	k := table + "/" + segment + ".tar.gz"
	if s.prefix != "" {
		k = s.prefix + "/" + k
	}
	return k
}

// URI returns s3://bucket/prefix/table/segment.tar.gz.
func (s *S3DeepStore) URI(table, segment string) string {
	return "s3://" + s.bucket + "/" + s.key(table, segment)
}

// Put uploads the tarball in one PutObject (S3 takes up to 5 GiB so).
func (s *S3DeepStore) Put(ctx context.Context, table, segment, tarPath string) error {
	w := Write{Op: OpDeepStorePut, Table: table, Segments: []string{segment}}
	key := s.key(table, segment)
	return call{policy: s.retry, write: &w}.run(ctx, func(ctx context.Context) error {
		f, err := os.Open(tarPath)
		if err != nil {
			return permanent(fmt.Errorf("put %s: %w", s.URI(table, segment), err))
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return permanent(fmt.Errorf("put %s: %w", s.URI(table, segment), err))
		}
		_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(s.bucket), Key: aws.String(key), Body: f, ContentLength: aws.Int64(st.Size()),
			ContentType: aws.String("application/gzip"),
		})
		if err != nil {
			return fmt.Errorf("put %s: %w", s.URI(table, segment), err)
		}
		return nil
	})
}

// Delete removes the tarballs of segments, up to 1,000 per request.
func (s *S3DeepStore) Delete(ctx context.Context, table string, segments []string) error {
	for len(segments) > 0 {
		n := min(len(segments), 1000)
		if err := s.deleteBatch(ctx, table, segments[:n]); err != nil {
			return err
		}
		segments = segments[n:]
	}
	return nil
}

func (s *S3DeepStore) deleteBatch(ctx context.Context, table string, segments []string) error {
	w := Write{Op: OpDeepStoreDel, Table: table, Segments: segments, Destructive: true}
	objs := make([]types.ObjectIdentifier, len(segments))
	for i, seg := range segments {
		objs[i] = types.ObjectIdentifier{Key: aws.String(s.key(table, seg))}
	}
	where := "s3://" + s.bucket + "/" + strings.TrimSuffix(s.key(table, "x"), "x.tar.gz")
	return call{policy: s.retry, write: &w}.run(ctx, func(ctx context.Context) error {
		out, err := s.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: aws.String(s.bucket), Delete: &types.Delete{Objects: objs, Quiet: aws.Bool(true)},
		})
		if err != nil {
			return fmt.Errorf("delete %d segment tarballs under %s: %w", len(segments), where, err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("delete %s: %s: %w", "s3://"+s.bucket+"/"+aws.ToString(e.Key), aws.ToString(e.Code),
				errors.New(aws.ToString(e.Message)))
		}
		return nil
	})
}

// String describes the location without its credentials, so that a
// printed configuration never shows them.
func (l S3Location) String() string {
	creds := "default chain"
	if l.AccessKeyID != "" {
		creds = "static keys"
	}
	return fmt.Sprintf("{uri:%s region:%s endpoint:%s pathStyle:%t credentials:%s}", l.URI, l.Region, l.Endpoint, l.PathStyle, creds)
}
