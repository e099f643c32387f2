package image

import (
	"fmt"
	"runtime"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Build makes the image the Spec describes (see the package doc).
func Build(s Spec) (v1.Image, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	base, err := baseLayer(s)
	if err != nil {
		return nil, fmt.Errorf("build base layer: %w", err)
	}
	bin, err := layerOf([]entry{{name: BinaryPath, mode: 0o755, source: s.Binary}}, s.Created)
	if err != nil {
		return nil, fmt.Errorf("build floe layer: %w", err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, base, bin)
	if err != nil {
		return nil, fmt.Errorf("append layers: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = arch(s.Arch), "linux"
	cf.Created = v1.Time{Time: s.Created.UTC()}
	cf.Author = "floe"
	cf.Config = config(s)
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set config: %w", err)
	}
	return img, nil
}

// config is the image's run configuration.
func config(s Spec) v1.Config {
	return v1.Config{
		User: User, WorkingDir: DataDir, Entrypoint: Entrypoint, Cmd: Cmd, Env: Env(), Labels: s.Labels(),
		Volumes: map[string]struct{}{DataDir: {}}, ExposedPorts: map[string]struct{}{Port: {}},
	}
}

func arch(a string) string {
	if a == "" {
		return runtime.GOARCH
	}
	return a
}

// baseLayer holds users, CA certificates, time zones and the directories.
func baseLayer(s Spec) (v1.Layer, error) {
	entries := append(dirs(),
		entry{name: "/etc/passwd", mode: 0o644, source: s.Passwd},
		entry{name: "/etc/group", mode: 0o644, source: s.Group},
		entry{name: CACertPath, mode: 0o644, source: s.CACerts})
	zones, err := treeEntries(s.ZoneInfo, ZoneInfo)
	if err != nil {
		return nil, err
	}
	return layerOf(append(entries, zones...), s.Created)
}

// CompressedSize is the size of the image's layers as stored (gzip) plus
// its config: what a node pulls.
func CompressedSize(img v1.Image) (int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return 0, fmt.Errorf("read manifest: %w", err)
	}
	n := m.Config.Size
	for _, l := range m.Layers {
		n += l.Size
	}
	return n, nil
}
