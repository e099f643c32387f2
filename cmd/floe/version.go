package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/floehq/floe/internal/buildinfo"
)

// build is what this binary says about itself.
func build() buildinfo.Info { return buildinfo.Read(version, revision, buildDate) }

func cmdVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the build information as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	info := build()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	_, err := fmt.Fprintln(stdout, info.String())
	return err
}
