package catalog

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"

	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/floehq/floe/catalog/awsaccess"
)

// restParams is what a REST catalog connection needs beyond the config.
type restParams struct {
	uri        string
	warehouse  string
	sigService string // "" for no SigV4
	sigRegion  string
	awsCfg     *aws.Config // signing credentials for SigV4
	fileRegion string
	access     awsaccess.Access // names a missing permission in errors
}

// newREST opens an iceberg-go REST catalog. It fetches /v1/config.
func newREST(ctx context.Context, cfg Config, p restParams) (*rest.Catalog, error) {
	props := cfg.fileIOProps(p.fileRegion)
	// Always load every snapshot: the watcher walks ancestry.
	props["snapshot-loading-mode"] = "all"
	opts := []rest.Option{
		rest.WithCustomTransport(cfg.restTransport(p.uri)),
		rest.WithAdditionalProps(props),
	}
	if p.warehouse != "" {
		opts = append(opts, rest.WithWarehouseLocation(p.warehouse))
	}
	opts = append(opts, cfg.restAuthOptions()...)
	if p.sigService != "" {
		opts = append(opts, rest.WithSigV4RegionSvc(p.sigRegion, p.sigService))
		if p.awsCfg != nil {
			opts = append(opts, rest.WithAwsConfig(*p.awsCfg))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	cat, err := rest.NewCatalog(ctx, cfg.Name, p.uri, opts...)
	if err != nil {
		return nil, wrapErr("connect to REST catalog", withoutPassword(p.uri), hint(p.access, awsaccess.OpConnect, err), err)
	}
	return cat, nil
}

// restAuthOptions maps prefix, scope, OAuth2 and bearer settings.
func (c Config) restAuthOptions() []rest.Option {
	var opts []rest.Option
	if v := c.prop(PropPrefix); v != "" {
		opts = append(opts, rest.WithPrefix(v))
	}
	if v := c.prop(PropScope); v != "" {
		opts = append(opts, rest.WithScope(v))
	}
	if v := c.prop(PropOAuthURI); v != "" {
		if u, err := url.Parse(v); err == nil {
			opts = append(opts, rest.WithAuthURI(u))
		}
	}
	if v := c.secret(SecretCredential); v != "" {
		opts = append(opts, rest.WithCredential(v))
	}
	if v := c.secret(SecretToken); v != "" {
		opts = append(opts, rest.WithOAuthToken(v))
	}
	return opts
}

// restURI is the uri prop with secrets.password as the password of its
// user (HTTP Basic), when both are given.
func (c Config) restURI() string {
	raw, pw := c.prop(PropURI), c.secret(SecretPassword)
	u, err := url.Parse(raw)
	if pw == "" || err != nil || u.User == nil {
		return raw
	}
	u.User = url.UserPassword(u.User.Username(), pw)
	return u.String()
}

// withoutPassword is a URL without the password of its userinfo (for
// errors and logs).
func withoutPassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User(u.User.Username())
	return u.String()
}

// openREST opens a generic Iceberg REST catalog, optionally SigV4-signed.
func openREST(ctx context.Context, cfg Config, logger *slog.Logger) (Catalog, error) {
	p := restParams{uri: cfg.restURI(), warehouse: cfg.prop(PropWarehouse), fileRegion: cfg.prop(PropRegion), access: cfg.access()}
	if sig, _ := strconv.ParseBool(cfg.prop(PropSigV4)); sig {
		p.sigService = cfg.prop(PropSigningName)
		if p.sigService == "" {
			p.sigService = "execute-api"
		}
		p.sigRegion = cfg.prop(PropSigningRegion)
		if p.sigRegion == "" {
			p.sigRegion = cfg.prop(PropRegion)
		}
		catalogCfg, err := cfg.awsConfig(ctx, "", p.sigRegion)
		if err != nil {
			return nil, err
		}
		p.awsCfg = &catalogCfg
	}
	cat, err := newREST(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	ic := &icebergCatalog{cfg: cfg, cat: cat, logger: logger, resource: withoutPassword(p.uri), timeout: cfg.timeout(), access: p.access}
	if ic.fileAWS, err = cfg.fileIOAWS(ctx, p.fileRegion); err != nil {
		return nil, err
	}
	if p.awsCfg != nil {
		ic.identity = cfg.callerIdentity(*p.awsCfg)
	}
	if cfg.hasDataCreds() {
		if err := ic.attachData(ctx, p.fileRegion); err != nil {
			return nil, err
		}
	}
	logger.Debug("opened REST catalog", slog.String("uri", withoutPassword(p.uri)))
	return ic, nil
}
