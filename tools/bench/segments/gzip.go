package main

import (
	stdgzip "compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
)

// cmdGzip compresses an uncompressed segment tar with the standard
// library's gzip at its fastest level (what floe's tarballs used before) or
// with klauspost/compress's stateless compressor (what segments.WriteTarGz
// uses), counting the bytes: the cost of the tarball's compression alone,
// before and after.
func cmdGzip(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gzip", flag.ContinueOnError)
	fs.SetOutput(stderr)
	impl := fs.String("impl", "klauspost", "std or klauspost")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("gzip: one tar file expected")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	defer f.Close()
	var w io.WriteCloser
	counter := &countingWriter{}
	switch *impl {
	case "std":
		w, err = stdgzip.NewWriterLevel(counter, stdgzip.BestSpeed)
	case "klauspost":
		w, err = gzip.NewWriterLevel(counter, gzip.StatelessCompression)
	default:
		return fmt.Errorf("gzip: unknown -impl %q", *impl)
	}
	if err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	fmt.Fprintf(stdout, "%d\n", counter.n)
	return nil
}

// countingWriter counts the compressed bytes.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// gunzipTo writes the uncompressed tar of a .tar.gz to path.
func gunzipTo(tarGz, path string) error {
	in, err := os.Open(tarGz)
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return fmt.Errorf("read %s: %w", tarGz, err)
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		out.Close()
		return fmt.Errorf("unpack %s: %w", tarGz, err)
	}
	return out.Close()
}
