// Command floe keeps Apache Pinot tables in step with Apache Iceberg tables.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// version, revision (the commit) and buildDate are set at build time with -ldflags
// "-X main.version=... -X main.revision=... -X main.buildDate=..." (the Makefile
// does); buildinfo fills what is left from the binary's build information.
var (
	version   = "dev"
	revision  = ""
	buildDate = ""
)

// command is one subcommand.
type command struct {
	name, usage string
	run         func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "run the watcher, the API and the status page", cmdServe},
		{"demo", "create a sample Iceberg table and sync it continuously (no configuration needed)", cmdDemo},
		{"sync", "run one sync of one table now", cmdSync},
		{"tables", "list the tables of a running floe with state, rows, lag and last run", cmdTables},
		{"status", "show one table of a running floe, with its progress while it runs", cmdStatus},
		{"trigger", "start a run of a table on a running floe now (-wait: follow it to the end)", cmdTrigger},
		{"pause", "pause a table's schedule on a running floe", cmdPause},
		{"resume", "resume a paused table's schedule on a running floe", cmdResume},
		{"runs", "list a table's newest runs on a running floe", cmdRuns},
		{"infer", "print the Pinot schema and table config inferred for an Iceberg table", cmdInfer},
		{"convert", "convert a Parquet file into a Pinot segment", cmdConvert},
		{"inspect", "print a Pinot segment's metadata, columns and rows", cmdInspect},
		{"aws-policy", "print the least-privilege IAM policy and trust policy floe needs for a connection", cmdAWSPolicy},
		{"aws-template", "write the CloudFormation template creating the role floe assumes for a connection", cmdAWSTemplate},
		{"version", "print the version, commit, build date and Go version (-json: as JSON)", cmdVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) { // help asked for is success
		fmt.Fprintln(os.Stderr, "floe:", err)
		os.Exit(1)
	}
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return errors.New("no command given")
	}
	if isHelp(args[0]) || args[0] == "help" {
		usage(stdout)
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return cmdVersion(ctx, args[1:], stdout, stderr)
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		if slices.ContainsFunc(args[1:], isHelp) {
			// Help asked for goes to standard output, as any answer does.
			stderr = stdout
		}
		return c.run(ctx, args[1:], stdout, stderr)
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: floe <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.usage)
	}
	fmt.Fprintln(w, "\nRun 'floe <command> -h' for a command's flags. Configuration: -config FILE or FLOE_CONFIG, FLOE_* overrides.")
}
