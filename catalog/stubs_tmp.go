package catalog

import (
	"context"
	"fmt"
	"log/slog"
)

func openS3Tables(_ context.Context, cfg Config, _ *slog.Logger) (Catalog, error) {
	return nil, fmt.Errorf("open catalog %s: s3tables connections are not implemented yet", cfg.Name)
}

func openGlue(_ context.Context, cfg Config, _ *slog.Logger) (Catalog, error) {
	return nil, fmt.Errorf("open catalog %s: glue connections are not implemented yet", cfg.Name)
}
