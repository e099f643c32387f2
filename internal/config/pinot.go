package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/floehq/floe/pinot"
)

// Retry bounds the retries of each controller and deep-store call:
// exponential backoff with full jitter on 5xx answers, timeouts and cut
// connections. It is the controller's own policy type.
type Retry = pinot.RetryPolicy

// DeepStore is an S3 or S3-compatible store segments are pushed to
// (metadata push); empty URI means tar push through the controller.
// The credentials are never logged; empty AccessKeyID means the AWS
// default chain. It is the deep store's own location type.
type DeepStore = pinot.S3Location

// validatePinot checks the pinot section and returns the first problem.
func (c *Config) validatePinot() *FieldError {
	p := c.Pinot
	checks := []func() *FieldError{
		func() *FieldError { return checkURL("pinot.controllerURL", p.ControllerURL, "http", "https") },
		func() *FieldError { return checkURL("pinot.brokerURL", p.BrokerURL, "http", "https") },
		func() *FieldError {
			if p.ControllerURL == "" && p.SegmentDir == "" {
				return &FieldError{"pinot.segmentDir", "must be set when pinot.controllerURL is empty"}
			}
			return nil
		},
		func() *FieldError { return positive("pinot.timeout", int64(p.Timeout)) },
		func() *FieldError { return positive("pinot.retry.attempts", int64(p.Retry.Attempts)) },
		func() *FieldError { return positive("pinot.retry.initialBackoff", int64(p.Retry.InitialBackoff)) },
		func() *FieldError {
			if p.Retry.MaxBackoff < p.Retry.InitialBackoff {
				return &FieldError{"pinot.retry.maxBackoff", "must be at least pinot.retry.initialBackoff"}
			}
			return nil
		},
		func() *FieldError { return positive("pinot.retry.maxElapsed", int64(p.Retry.MaxElapsed)) },
		func() *FieldError { return validateDeepStore(p.DeepStore) },
		func() *FieldError {
			if p.DeepStore.URI != "" && p.ControllerURL == "" {
				return &FieldError{"pinot.deepStore.uri", "needs pinot.controllerURL (the metadata push goes to a controller)"}
			}
			return nil
		},
	}
	for _, check := range checks {
		if fe := check(); fe != nil {
			return fe
		}
	}
	return nil
}

func validateDeepStore(d DeepStore) *FieldError {
	if d.URI == "" {
		return nil
	}
	u, err := url.Parse(d.URI)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return &FieldError{"pinot.deepStore.uri", "want s3://bucket[/prefix]"}
	}
	if strings.TrimSpace(d.Region) == "" {
		return &FieldError{"pinot.deepStore.region", "must be set with pinot.deepStore.uri"}
	}
	if fe := checkURL("pinot.deepStore.endpoint", d.Endpoint, "http", "https"); fe != nil {
		return fe
	}
	if (d.AccessKeyID == "") != (d.SecretAccessKey == "") {
		return &FieldError{"pinot.deepStore.secretAccessKey", "accessKeyID and secretAccessKey go together (or neither: the AWS default chain)"}
	}
	return nil
}

// String describes the pinot section with header names but not their
// values (Authorization) and without deep-store credentials.
func (p Pinot) String() string {
	names := make([]string, 0, len(p.Headers))
	for k := range p.Headers {
		names = append(names, k)
	}
	slices.Sort(names)
	return fmt.Sprintf("{controllerURL:%s brokerURL:%s segmentDir:%s headers:[%s] timeout:%s retry:%+v deepStore:%s}",
		p.ControllerURL, p.BrokerURL, p.SegmentDir, strings.Join(names, " "), p.Timeout, p.Retry, p.DeepStore)
}
