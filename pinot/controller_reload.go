package pinot

import (
	"context"
	"errors"
	"net/http"
	"net/url"
)

// Reloader is an Uploader whose Pinot servers can reload a table's
// segments with the table's current schema: a column added to the schema
// then appears in every old segment as a default column (null on Pinot
// 0.12 and later, which give it a null value vector; the column's default
// null value on older releases). Controller implements it; LocalDir holds
// no loaded segments (a reader loads them with the schema it stores).
type Reloader interface {
	ReloadSegments(ctx context.Context, table string) error
}

var _ Reloader = (*Controller)(nil)

// ReloadSegments asks the controller to have the servers reload every
// OFFLINE segment of table (POST /segments/{table}_OFFLINE/reload). The
// servers reload in the background; the call returns once the controller
// sent the messages. A table without segments (404) has nothing to reload.
func (c *Controller) ReloadSegments(ctx context.Context, table string) error {
	r := request{op: "reload segments of " + table, method: http.MethodPost,
		path: "/segments/" + url.PathEscape(table+"_OFFLINE") + "/reload"}
	err := c.write(ctx, Write{Op: OpReload, Table: table}, r, nil)
	var api *APIError
	if errors.As(err, &api) && api.Status == http.StatusNotFound {
		return nil
	}
	return err
}
