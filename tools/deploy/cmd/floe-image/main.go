// Command floe-image builds floe's container image from the static binary
// without a container engine (make image): an OCI image layout directory,
// which crane, skopeo or oras push to a registry, and optionally a tarball
// that `docker load` reads. See package image for what the image holds.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/floehq/floe/tools/deploy/image"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "floe-image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var s image.Spec
	var out, tarPath, tag, created string
	fs := flag.NewFlagSet("floe-image", flag.ContinueOnError)
	fs.StringVar(&s.Binary, "binary", "bin/floe", "the static floe binary")
	fs.StringVar(&s.Passwd, "passwd", "deploy/image/passwd", "the image's /etc/passwd")
	fs.StringVar(&s.Group, "group", "deploy/image/group", "the image's /etc/group")
	fs.StringVar(&s.CACerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "CA bundle to include")
	fs.StringVar(&s.ZoneInfo, "zoneinfo", "/usr/share/zoneinfo", "time zone database to include")
	fs.StringVar(&s.Version, "version", "dev", "image version (org.opencontainers.image.version)")
	fs.StringVar(&s.Revision, "revision", "", "git commit (org.opencontainers.image.revision)")
	fs.StringVar(&s.Source, "source", "https://github.com/floehq/floe", "repository (org.opencontainers.image.source)")
	fs.StringVar(&s.Arch, "arch", "", "GOARCH of the binary (default: this machine's)")
	fs.StringVar(&created, "created", "", "creation time, RFC 3339 (default: now; set it for reproducible builds)")
	fs.StringVar(&out, "out", "bin/floe-image", "OCI image layout directory to write (replaced)")
	fs.StringVar(&tarPath, "tar", "", "also write a docker-loadable tarball here")
	fs.StringVar(&tag, "tag", "floe:dev", "the tarball's image reference")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s.Created = time.Now().UTC().Truncate(time.Second)
	if created != "" {
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return fmt.Errorf("-created: %w", err)
		}
		s.Created = t
	}
	img, err := image.Build(s)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return fmt.Errorf("remove %s: %w", out, err)
	}
	p, err := layout.Write(out, empty.Index)
	if err != nil {
		return fmt.Errorf("write layout %s: %w", out, err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": s.Version})); err != nil {
		return fmt.Errorf("write image to %s: %w", out, err)
	}
	if tarPath != "" {
		ref, err := name.NewTag(tag)
		if err != nil {
			return fmt.Errorf("-tag: %w", err)
		}
		if err := tarball.WriteToFile(tarPath, ref, img); err != nil {
			return fmt.Errorf("write %s: %w", tarPath, err)
		}
	}
	return report(img, out)
}

// report prints the image's digest and size (compressed layers and
// config, what a registry stores and a node pulls).
func report(img v1.Image, out string) error {
	digest, err := img.Digest()
	if err != nil {
		return fmt.Errorf("image digest: %w", err)
	}
	size, err := image.CompressedSize(img)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %s, %.1f MiB compressed\n", out, digest, float64(size)/(1<<20))
	return nil
}
