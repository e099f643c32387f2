package pinot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
)

// Operations of TableDropper the write guard is asked about.
const (
	OpDropTable  = "drop table"
	OpDropSchema = "drop schema"
)

// TableDropper deletes a Pinot table when its external table is deleted
// with dropPinotTable: its config and every segment, and its schema too
// when dropSchema. A table (or schema) that is already gone is not an
// error, so a repeated delete finishes what an interrupted one began.
type TableDropper interface {
	DropTable(ctx context.Context, table string, dropSchema bool) error
}

var (
	_ TableDropper = (*Controller)(nil)
	_ TableDropper = (*LocalDir)(nil)
)

// DropTable deletes the OFFLINE table (DELETE /tables/{table}?type=offline:
// the controller removes its segments with it), then the schema named like
// the table when dropSchema, then the deep-store objects of the segments
// the table held.
func (c *Controller) DropTable(ctx context.Context, table string, dropSchema bool) error {
	var objects []string
	if c.DeepStore != nil {
		names, err := c.listSegments(ctx, table, false)
		if err != nil && !errors.Is(err, ErrTableMissing) {
			return fmt.Errorf("drop table %s: %w", table, err)
		}
		objects = names
	}
	r := request{op: "drop table " + table, method: http.MethodDelete, path: "/tables/" + url.PathEscape(table),
		query: url.Values{"type": {"offline"}}}
	if err := ignoreMissing(c.write(ctx, Write{Op: OpDropTable, Table: table, Destructive: true}, r, nil)); err != nil {
		return err
	}
	if dropSchema {
		r = request{op: "drop schema " + table, method: http.MethodDelete, path: "/schemas/" + url.PathEscape(table)}
		if err := ignoreMissing(c.write(ctx, Write{Op: OpDropSchema, Table: table, Destructive: true}, r, nil)); err != nil {
			return err
		}
	}
	return c.deleteObjects(ctx, table, objects)
}

// ignoreMissing treats a controller's 404 as done.
func ignoreMissing(err error) error {
	var api *APIError
	if errors.As(err, &api) && api.Status == http.StatusNotFound {
		return nil
	}
	return err
}

// DropTable removes the table's directory: config, state and tarballs. It
// is renamed aside first, so other processes see the table whole or gone.
// The schema lives in the same directory and goes with it whatever
// dropSchema says: a local directory keeps no schema without its table.
func (d *LocalDir) DropTable(ctx context.Context, table string, _ bool) error {
	if err := CheckGuard(ctx, Write{Op: OpDropTable, Table: table, Destructive: true}); err != nil {
		return err
	}
	dir := d.tableDir(table)
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	aside := d.tableDir("." + table + ".dropped-" + hex.EncodeToString(nonce[:]))
	if err := os.Rename(dir, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("drop table %s: %w", table, err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("drop table %s: remove %s: %w", table, aside, err)
	}
	return nil
}
