package catalog

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/floehq/floe/internal/egress"
)

// AWS service ids used for endpoint overrides (AWS_ENDPOINT_URL_<ID>).
const (
	svcS3       = "s3"
	svcS3Tables = "s3tables"
	svcGlue     = "glue"
	svcSTS      = "sts"
)

// endpointFor returns the endpoint override for an AWS service: props
// endpoint.<svc>, then endpoint, then AWS_ENDPOINT_URL_<SVC>, then
// AWS_ENDPOINT_URL. "" means the service's normal endpoint.
func (c Config) endpointFor(svc string) string {
	if e := c.prop(PropEndpoint + "." + svc); e != "" {
		return e
	}
	if e := c.prop(PropEndpoint); e != "" {
		return e
	}
	if e := os.Getenv("AWS_ENDPOINT_URL_" + strings.ToUpper(svc)); e != "" {
		return e
	}
	return os.Getenv("AWS_ENDPOINT_URL")
}

// boundTransport bounds the TLS handshake and response header phases by
// the connection's timeout (the dial is bounded by its dialer).
func (c Config) boundTransport(tr *http.Transport) {
	t := c.transportTimeout()
	tr.TLSHandshakeTimeout = t
	tr.ResponseHeaderTimeout = t
}

// awsHTTPClient is the AWS SDK's buildable client (it honours
// AWS_CA_BUNDLE) with the same bounds; [Config.policeAWS] puts it under
// the egress policy once the SDK has configured it.
func (c Config) awsHTTPClient() *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithTimeout(4 * c.timeout()).
		WithTransportOptions(c.boundTransport)
}

// awsRetryer makes two attempts, and one only when the endpoint could not
// be reached or the egress policy refused it: a second attempt would end
// in the call's deadline for a silent port and not for a closed one,
// telling them apart (egress E4).
func awsRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 2
		o.Retryables = append([]retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			if errors.Is(err, egress.ErrUnreachable) || errors.Is(err, egress.ErrRefused) {
				return aws.FalseTernary
			}
			return aws.UnknownTernary
		})}, o.Retryables...)
	})
}

// policeAWS replaces cfg's HTTP client by one over the same transport
// that dials under the egress policy for AWS endpoints, follows no
// redirect to another host and cuts error answers to excerpts.
func (c Config) policeAWS(cfg *aws.Config) {
	b, ok := cfg.HTTPClient.(*awshttp.BuildableClient)
	if !ok {
		return
	}
	cfg.HTTPClient = c.egressPolicy().Client(egress.AWS, b.GetTransport(), c.dialer(), b.GetTimeout(), c.scrubber())
}

// hasDataCreds reports whether the data side has credentials of its own.
func (c Config) hasDataCreds() bool {
	for k := range c.Props {
		if strings.HasPrefix(k, PropDataPrefix) {
			return true
		}
	}
	for k := range c.Secrets {
		if strings.HasPrefix(k, PropDataPrefix) {
			return true
		}
	}
	return false
}

// awsConfig builds the AWS config of one side (prefix "" for the catalog,
// "data." for storage): static keys or the default chain, then the
// optional via-role and role hops.
func (c Config) awsConfig(ctx context.Context, prefix, region string) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{
		config.WithRegion(region),
		config.WithHTTPClient(c.awsHTTPClient()),
		config.WithRetryer(awsRetryer),
	}
	if id := c.secret(prefix + SecretAccessKeyID); id != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(
			id, c.secret(prefix+SecretSecretAccessKey), c.secret(prefix+SecretSessionToken))))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, wrapErr("load AWS config", "", "", err)
	}
	c.policeAWS(&cfg)
	if via := c.prop(prefix + PropViaRoleARN); via != "" {
		cfg.Credentials = c.assume(cfg, via, c.prop(prefix+PropViaExternalID))
	}
	if role := c.prop(prefix + PropRoleARN); role != "" {
		cfg.Credentials = c.assume(cfg, role, c.prop(prefix+PropExternalID))
	}
	return cfg, nil
}

// assume returns cached credentials of role, assumed with base's credentials.
func (c Config) assume(base aws.Config, role, externalID string) aws.CredentialsProvider {
	client := sts.NewFromConfig(base, func(o *sts.Options) {
		if ep := c.endpointFor(svcSTS); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	})
	session := c.prop(PropRoleSessionName)
	if session == "" {
		session = "floe-" + sanitizeSession(c.Name)
	}
	p := stscreds.NewAssumeRoleProvider(client, role, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = session
		o.Duration = time.Hour
		if externalID != "" {
			o.ExternalID = aws.String(externalID)
		}
	})
	return &roleProvider{role: role, inner: aws.NewCredentialsCache(p)}
}

// roleProvider names the role in errors so a failed hop says which one.
type roleProvider struct {
	role  string
	inner aws.CredentialsProvider
}

func (p *roleProvider) Retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := p.inner.Retrieve(ctx)
	if err != nil {
		return creds, wrapErr("assume role", p.role, "sts:AssumeRole", err)
	}
	return creds, nil
}

func sanitizeSession(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '-' || r == '_' || r == '.' || r == '@' || r == '=' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() > 50 {
		return b.String()[:50]
	}
	return b.String()
}

// awsSides resolves the catalog and the data AWS configs.
func (c Config) awsSides(ctx context.Context, region string) (catalogCfg, dataCfg aws.Config, err error) {
	catalogCfg, err = c.awsConfig(ctx, "", region)
	if err != nil {
		return aws.Config{}, aws.Config{}, err
	}
	if !c.hasDataCreds() {
		return catalogCfg, catalogCfg, nil
	}
	dataRegion := c.prop(PropDataPrefix + PropRegion)
	if dataRegion == "" {
		dataRegion = region
	}
	dataCfg, err = c.awsConfig(ctx, PropDataPrefix, dataRegion)
	return catalogCfg, dataCfg, err
}

// callerIdentity returns a check that the catalog credentials are accepted
// (STS GetCallerIdentity needs no permission) and who they belong to.
func (c Config) callerIdentity(awsCfg aws.Config) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		client := sts.NewFromConfig(awsCfg, func(o *sts.Options) {
			if ep := c.endpointFor(svcSTS); ep != "" {
				o.BaseEndpoint = aws.String(ep)
			}
		})
		out, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			return "", wrapErr("check credentials with", "sts:GetCallerIdentity", "", err)
		}
		return "authenticated as " + aws.ToString(out.Arn), nil
	}
}
