package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// SQSQueue is an Amazon SQS queue (the IAM actions it needs:
// sqs:ReceiveMessage, sqs:DeleteMessage, sqs:ChangeMessageVisibility,
// sqs:GetQueueAttributes, on that queue).
type SQSQueue struct {
	url    string
	client *sqs.Client
}

var _ Queue = (*SQSQueue)(nil)

// SQSOptions say how to reach a queue. Region defaults to the one in the
// queue URL; without AccessKeyID the default credential chain is used.
type SQSOptions struct {
	URL                                        string
	Region                                     string
	Endpoint                                   string // e.g. a local SQS; "" AWS
	AccessKeyID, SecretAccessKey, SessionToken string
	// Police, when set, gives the HTTP client the queue's calls go
	// through, over the SDK's own transport (its CA bundle and pools): floe
	// passes one that dials under its egress policy.
	Police func(tr *http.Transport, timeout time.Duration) aws.HTTPClient
}

// NewSQSQueue returns the queue at opts.URL.
func NewSQSQueue(ctx context.Context, opts SQSOptions) (*SQSQueue, error) {
	region := opts.Region
	if region == "" {
		region = RegionOfQueueURL(opts.URL)
	}
	load := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(region)}
	if opts.AccessKeyID != "" {
		load = append(load, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(
			opts.AccessKeyID, opts.SecretAccessKey, opts.SessionToken)))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("load AWS config for queue %s: %w", opts.URL, err)
	}
	if b, ok := cfg.HTTPClient.(*awshttp.BuildableClient); ok && opts.Police != nil {
		cfg.HTTPClient = opts.Police(b.GetTransport(), b.GetTimeout())
	}
	client := sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
	})
	return &SQSQueue{url: opts.URL, client: client}, nil
}

// RegionOfQueueURL reads the region of https://sqs.REGION.amazonaws.com/…
// ("" for other hosts).
func RegionOfQueueURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	parts := strings.Split(u.Hostname(), ".")
	if len(parts) >= 4 && parts[0] == "sqs" && strings.HasPrefix(strings.Join(parts[2:], "."), "amazonaws.com") {
		return parts[1]
	}
	return ""
}

// Receive long-polls the queue.
func (q *SQSQueue) Receive(ctx context.Context, max int, wait, visibility time.Duration) ([]Message, error) {
	out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(q.url), MaxNumberOfMessages: int32(max),
		WaitTimeSeconds: int32(wait / time.Second), VisibilityTimeout: int32(visibility / time.Second),
	})
	if err != nil {
		return nil, fmt.Errorf("receive from %s: %w", q.url, err)
	}
	msgs := make([]Message, 0, len(out.Messages))
	for _, m := range out.Messages {
		msgs = append(msgs, Message{ID: aws.ToString(m.MessageId), Receipt: aws.ToString(m.ReceiptHandle),
			Body: []byte(aws.ToString(m.Body))})
	}
	return msgs, nil
}

// Delete deletes messages, ten to a call.
func (q *SQSQueue) Delete(ctx context.Context, receipts []string) error {
	var errs []error
	for start := 0; start < len(receipts); start += batchSize {
		chunk := receipts[start:min(start+batchSize, len(receipts))]
		entries := make([]types.DeleteMessageBatchRequestEntry, len(chunk))
		for i, r := range chunk {
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(r)}
		}
		out, err := q.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.url), Entries: entries})
		if err != nil {
			errs = append(errs, fmt.Errorf("delete messages from %s: %w", q.url, err))
			continue
		}
		for _, f := range out.Failed {
			errs = append(errs, fmt.Errorf("delete message from %s: %s %s", q.url, aws.ToString(f.Code), aws.ToString(f.Message)))
		}
	}
	return errors.Join(errs...)
}

// Release changes a message's visibility timeout to d.
func (q *SQSQueue) Release(ctx context.Context, receipt string, d time.Duration) error {
	_, err := q.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(q.url), ReceiptHandle: aws.String(receipt), VisibilityTimeout: int32(d / time.Second)})
	if err != nil {
		return fmt.Errorf("change visibility on %s: %w", q.url, err)
	}
	return nil
}

// Describe reads the queue's redrive policy.
func (q *SQSQueue) Describe(ctx context.Context) (QueueInfo, error) {
	out, err := q.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q.url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameRedrivePolicy}})
	if err != nil {
		return QueueInfo{}, fmt.Errorf("read attributes of %s: %w", q.url, err)
	}
	var info QueueInfo
	if raw := out.Attributes[string(types.QueueAttributeNameRedrivePolicy)]; raw != "" {
		var p struct {
			DeadLetterTargetArn string `json:"deadLetterTargetArn"`
			MaxReceiveCount     any    `json:"maxReceiveCount"`
		}
		if json.Unmarshal([]byte(raw), &p) == nil {
			info.DeadLetter = p.DeadLetterTargetArn
			info.MaxReceives, _ = strconv.Atoi(fmt.Sprint(p.MaxReceiveCount))
		}
	}
	return info, nil
}
