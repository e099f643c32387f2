package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/floehq/floe/client"
	"github.com/floehq/floe/internal/config"
)

// remoteFlags are the flags of the commands that talk to a running floe
// (tables, status, trigger, pause, resume, runs).
type remoteFlags struct {
	addr, token, output string
	timeout             time.Duration
}

// Output formats of the remote commands.
const (
	outputTable = "table"
	outputJSON  = "json"
)

func addRemoteFlags(fs *flag.FlagSet) *remoteFlags {
	r := &remoteFlags{}
	fs.StringVar(&r.addr, "addr", "", "address of the running floe (default $"+config.AddrEnv+", else "+client.DefaultAddr+")")
	// No default value: flag's help would print it, and a token must not be.
	fs.StringVar(&r.token, "token", "", "API token (default $"+config.TokenEnv+", else $"+config.APITokenEnv+"); never printed")
	fs.StringVar(&r.output, "o", outputTable, "output: table (for people) or json")
	fs.DurationVar(&r.timeout, "timeout", client.DefaultTimeout, "bound of each request")
	return r
}

// client returns the API client the flags and environment describe.
func (r *remoteFlags) client() (*client.Client, error) {
	if r.output != outputTable && r.output != outputJSON {
		return nil, fmt.Errorf("-o %q: want table or json", r.output)
	}
	addr := firstSet(r.addr, os.Getenv(config.AddrEnv), client.DefaultAddr)
	token := firstSet(r.token, os.Getenv(config.TokenEnv), os.Getenv(config.APITokenEnv))
	return client.New(addr, client.Options{Token: token, Timeout: r.timeout})
}

func (r *remoteFlags) json() bool { return r.output == outputJSON }

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// parseWithTable parses "T [flags]" or "[flags] T [flags]" and returns T.
// Its usage names the TABLE argument.
func parseWithTable(fs *flag.FlagSet, args []string) (string, error) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: floe %s TABLE [flags]\n\nflags:\n", fs.Name())
		fs.PrintDefaults()
	}
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return "", err
		}
	}
	switch {
	case name == "":
		return "", fmt.Errorf("%s: name a table: floe %s TABLE [flags]", fs.Name(), fs.Name())
	case fs.NArg() > 0:
		return "", fmt.Errorf("%s: unexpected arguments %q after table %s", fs.Name(), fs.Args(), name)
	}
	return name, nil
}

// tableErr says "table T not found" for a 404; other errors already name
// the table and carry the server's message.
func tableErr(name string, err error) error {
	if errors.Is(err, client.ErrNotFound) {
		return fmt.Errorf("table %s not found", name)
	}
	return remoteErr(err)
}

// remoteErr adds a hint to an error that is not the server's answer.
func remoteErr(err error) error {
	var apiErr *client.Error
	if err == nil || errors.As(err, &apiErr) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w (is floe running there? set -addr or $%s)", err, config.AddrEnv)
}
