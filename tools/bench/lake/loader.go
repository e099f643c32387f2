package lake

import (
	"context"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// Loader serves the lake's table to an in-process watcher, whatever table
// record asks for it.
type Loader struct{ Lake *Lake }

var _ watcher.TableLoader = Loader{}

// LoadTable loads the lake's table.
func (ld Loader) LoadTable(ctx context.Context, _ checkpoint.Table) (*watcher.Source, error) {
	tbl, err := ld.Lake.Load(ctx)
	if err != nil {
		return nil, err
	}
	return &watcher.Source{Table: tbl, MetadataLocation: tbl.MetadataLocation()}, nil
}
