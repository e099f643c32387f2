package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/awsaccess"
	"github.com/floehq/floe/internal/config"
)

// awsFlags are the flags of aws-policy and aws-template.
type awsFlags struct {
	cfgPath, connection, server, token, role, out string
	opts                                          awsaccess.Options
}

func parseAWSFlags(name string, args []string, stderr io.Writer) (awsFlags, error) {
	var f awsFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := configFlag(fs)
	fs.StringVar(&f.connection, "connection", "", "connection NAME (from the config file, or from the floe at -addr) (required)")
	fs.StringVar(&f.server, "addr", "", "ask the running floe at this address (e.g. 127.0.0.1:8080) instead of reading the config file (default $"+config.AddrEnv+")")
	fs.StringVar(&f.server, "server", "", "the same as -addr (an older name)")
	// No default value: flag's help would print it, and a token must not be.
	fs.StringVar(&f.token, "token", "", "API token of that floe (default $"+config.TokenEnv+", else $"+config.APITokenEnv+"); never printed")
	fs.StringVar(&f.opts.TrustedPrincipal, "trusted-principal", "", "floe's own principal allowed to assume the role: an account id or an IAM role or user ARN")
	fs.Var((*repeated)(&f.opts.Data), "data", "s3://bucket/prefix of the table files (glue and REST connections); repeatable")
	fs.StringVar(&f.opts.DeepStore, "deep-store", "", "s3://bucket/prefix of the Pinot deep store floe writes segments to")
	fs.Var((*repeated)(&f.opts.KMSKeys), "kms-key", "ARN of a KMS key that encrypts the files; repeatable")
	fs.BoolVar(&f.opts.LakeFormation, "lake-formation", false, "Lake Formation governs the Glue tables")
	fs.Var((*repeated)(&f.opts.Databases), "database", "scope Glue table reads to this database; repeatable")
	fs.StringVar(&f.opts.Account, "account", "", "account that owns the catalog when the connection does not say")
	fs.StringVar(&f.opts.RoleName, "role-name", "", "name of the reader role when the connection has no role-arn")
	notifications := fs.Bool("notifications", false, "floe reads commit notifications: grant the SQS actions on the queue, and create the queue and its EventBridge rules in the template")
	queueARN := fs.String("notify-queue-arn", "", "with -notifications: an existing queue to read (the template then creates none)")
	queueName := fs.String("notify-queue-name", "", "with -notifications: the name of the queue the template creates (default floe-<connection>-notifications)")
	if name == "aws-template" {
		fs.StringVar(&f.role, "role", awsaccess.RoleReader, "which role's template: reader, or middle (floe's own role of a two-hop chain)")
		fs.StringVar(&f.out, "o", "", "write the template to this file (default: standard output)")
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	f.cfgPath = *cfgPath
	f.server = firstSet(f.server, os.Getenv(config.AddrEnv))
	if f.server != "" && !strings.Contains(f.server, "://") {
		f.server = "http://" + f.server
	}
	f.token = firstSet(f.token, os.Getenv(config.TokenEnv), os.Getenv(config.APITokenEnv))
	if *notifications || *queueARN != "" || *queueName != "" {
		f.opts.Notifications = &awsaccess.Notifications{QueueARN: *queueARN, QueueName: *queueName}
	}
	if f.connection == "" {
		return f, fmt.Errorf("%s: -connection is required", name)
	}
	return f, nil
}

// cmdAWSPolicy prints the least-privilege IAM policy, trust policy and
// notes floe needs for a connection (JSON, as the API answers).
func cmdAWSPolicy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseAWSFlags("aws-policy", args, stderr)
	if err != nil {
		return err
	}
	if f.server != "" {
		body, err := fromServer(ctx, f, "iam-policy")
		if err != nil {
			return fmt.Errorf("aws-policy: %w", err)
		}
		_, err = stdout.Write(body)
		return err
	}
	res, err := localAccess(f)
	if err != nil {
		return fmt.Errorf("aws-policy: %w", err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// cmdAWSTemplate writes the CloudFormation template (YAML) that creates
// the role floe assumes for a connection.
func cmdAWSTemplate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseAWSFlags("aws-template", args, stderr)
	if err != nil {
		return err
	}
	var tpl []byte
	if f.server != "" {
		tpl, err = fromServer(ctx, f, "cloudformation")
	} else {
		var res *awsaccess.Result
		if res, err = localAccess(f); err == nil {
			tpl, err = awsaccess.Template(res, f.role)
		}
	}
	if err != nil {
		return fmt.Errorf("aws-template: %w", err)
	}
	if f.out == "" {
		_, err = stdout.Write(tpl)
		return err
	}
	if err := os.WriteFile(f.out, tpl, 0o644); err != nil {
		return fmt.Errorf("aws-template: write %s: %w", f.out, err)
	}
	fmt.Fprintf(stderr, "wrote %s: deploy it with CloudFormation (the RoleArn output is the connection's role-arn), then validate the connection\n", f.out)
	return nil
}

// localAccess generates the access of a connection from the config file.
func localAccess(f awsFlags) (*awsaccess.Result, error) {
	cfg, err := loadConfig(f.cfgPath)
	if err != nil {
		return nil, err
	}
	c, ok := cfg.Connections[f.connection]
	if !ok {
		return nil, fmt.Errorf("connection %s is not in the config file (connections.%s); give -server URL to ask a running floe", f.connection, f.connection)
	}
	cc := catalog.Config{Name: f.connection, Type: c.Type, Props: c.Props}
	if err := cc.Validate(); err != nil {
		return nil, err
	}
	return awsaccess.Generate(cc.AWSAccess(), f.opts)
}

// fromServer asks a running floe's API for the connection's access.
func fromServer(ctx context.Context, f awsFlags, what string) ([]byte, error) {
	q := url.Values{}
	set := func(k string, vs ...string) {
		for _, v := range vs {
			if v != "" {
				q.Add(k, v)
			}
		}
	}
	set("trustedPrincipal", f.opts.TrustedPrincipal)
	set("data", f.opts.Data...)
	set("deepStore", f.opts.DeepStore)
	set("kmsKey", f.opts.KMSKeys...)
	set("database", f.opts.Databases...)
	set("account", f.opts.Account)
	set("roleName", f.opts.RoleName)
	set("role", f.role)
	if f.opts.LakeFormation {
		q.Set("lakeFormation", strconv.FormatBool(true))
	}
	u := strings.TrimRight(f.server, "/") + "/api/v1/connections/" + url.PathEscape(f.connection) + "/" + what + "?" + q.Encode()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("ask %s: %w", f.server, err)
	}
	if f.token != "" {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ask %s: %w", f.server, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("read answer of %s: %w", f.server, err)
	}
	if resp.StatusCode != http.StatusOK {
		var apiErr struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &apiErr) == nil && apiErr.Error != "" {
			return nil, errors.New(apiErr.Error)
		}
		return nil, fmt.Errorf("%s answered %s", f.server, resp.Status)
	}
	return body, nil
}
