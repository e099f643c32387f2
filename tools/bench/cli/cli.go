// Package cli runs a benchmark command: its flags and work in run, an
// interrupt cancelling the context, a one-line error and exit status 1.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// Main runs run with the process's arguments under ctx (the program's own
// context), cancelled on an interrupt, and exits with its outcome; name
// prefixes the error line.
func Main(ctx context.Context, name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, name+":", err)
		}
		os.Exit(1)
	}
}
