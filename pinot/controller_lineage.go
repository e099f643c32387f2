package pinot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Lineage entry states, as the controller's GET /segments/{t}/lineage
// spells them (format: never change; they are Pinot's).
const (
	lineageInProgress = "IN_PROGRESS"
	lineageCompleted  = "COMPLETED"
	lineageReverted   = "REVERTED"
)

type lineageEntry struct {
	SegmentsFrom []string `json:"segmentsFrom"`
	SegmentsTo   []string `json:"segmentsTo"`
	State        string   `json:"state"`
}

type replaceRequest struct {
	SegmentsFrom []string `json:"segmentsFrom"`
	SegmentsTo   []string `json:"segmentsTo"`
}

// StartReplace opens a segment lineage entry replacing from by to and
// returns its id. When an open entry overlaps it, forceCleanup=true makes
// the controller revert that entry (deleting its To segments not in to),
// so a retry after a lost answer, or a run after a crashed one, starts
// cleanly. Only then: each attempt reads the lineage and asks for the
// cleanup only when an open entry overlaps, because Pinot 0.11 never
// answers a forceCleanup start whose From a reverted entry shares (the
// request hangs), which is how a run starts after it reverted a
// replacement. Pinot before 1.0 refuses an empty to; use DeleteSegments
// for pure removals (Replace does).
func (c *Controller) StartReplace(ctx context.Context, table string, from, to []string) (string, error) {
	if len(from) == 0 && len(to) == 0 {
		return "", fmt.Errorf("start replace segments of %s: nothing to replace", table)
	}
	entries, err := c.lineage(ctx, table)
	if err != nil {
		return "", fmt.Errorf("start replace segments of %s: %w", table, err)
	}
	if name, id := revertedName(entries, to); name != "" {
		return "", fmt.Errorf("start replace segments of %s: segment %s (reverted replacement %s): %w", table, name, id, ErrSegmentNameReverted)
	}
	body, err := jsonBody(replaceRequest{SegmentsFrom: nonNil(from), SegmentsTo: nonNil(to)})
	if err != nil {
		return "", fmt.Errorf("start replace segments of %s: %w", table, err)
	}
	w := Write{Op: OpStartReplace, Table: table, Segments: append(append([]string{}, from...), to...), Destructive: true}
	r := request{op: "start replace segments of " + table, method: http.MethodPost,
		path: "/segments/" + url.PathEscape(table) + "/startReplaceSegments", body: body}
	var out struct {
		ID string `json:"segmentLineageEntryId"`
	}
	first := true
	err = call{policy: c.Retry, write: &w}.run(ctx, func(ctx context.Context) error {
		if !first { // an earlier attempt may have opened the entry
			if entries, err = c.lineage(ctx, table); err != nil {
				return err
			}
		}
		first = false
		force := strconv.FormatBool(overlapsOpen(entries, from, to))
		r.query = url.Values{"type": {"OFFLINE"}, "forceCleanup": {force}}
		err := c.send(ctx, r, &out)
		if rejectedReplace(err) {
			return permanent(err)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	if out.ID == "" {
		return "", fmt.Errorf("start replace segments of %s: answer has no segmentLineageEntryId", table)
	}
	return out.ID, nil
}

// overlapsOpen reports whether an open (IN_PROGRESS) entry shares a From
// or To segment with from and to.
func overlapsOpen(entries map[string]lineageEntry, from, to []string) bool {
	for _, e := range entries {
		if e.State != lineageInProgress {
			continue
		}
		for _, s := range e.SegmentsFrom {
			if slices.Contains(from, s) {
				return true
			}
		}
		for _, s := range e.SegmentsTo {
			if slices.Contains(to, s) {
				return true
			}
		}
	}
	return false
}

// rejectedReplace reports a startReplaceSegments refusal no retry can fix:
// a From segment the table does not serve or a To segment it already
// holds. The controller answers these with HTTP 500 like transient
// failures, so the message tells them apart (0.11 and 1.x wordings).
func rejectedReplace(err error) bool {
	var api *APIError
	if !errors.As(err, &api) || api.Status < 500 {
		return false
	}
	for _, s := range []string{
		"from 'segmentsFrom' are available", "from 'segmentsTo' should not be available", // 0.11
		"from 'segmentsFrom' does not exist in table", "from 'segmentsTo' exists in table", // 1.x
	} {
		if strings.Contains(api.Body, s) {
			return true
		}
	}
	return false
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// EndReplace completes a lineage entry: queries switch to its To segments.
// After a failed attempt the entry's state settles the outcome: COMPLETED
// means an earlier attempt took effect (done; the controller also answers
// a repeated end with success), REVERTED or gone means ErrReplaceAborted.
// The From segments stay in Pinot, unserved, until the controller's
// retention manager deletes them.
func (c *Controller) EndReplace(ctx context.Context, table, id string) error {
	body, _ := jsonBody(map[string]any{})
	w := Write{Op: OpEndReplace, Table: table, Destructive: true}
	r := request{op: "end replace segments of " + table, method: http.MethodPost,
		path:  "/segments/" + url.PathEscape(table) + "/endReplaceSegments",
		query: url.Values{"type": {"OFFLINE"}, "segmentLineageEntryId": {id}}, body: body}
	settle := func(ctx context.Context) (bool, error) {
		e, ok, err := c.lineageEntry(ctx, table, id)
		switch {
		case err != nil:
			return false, nil // unknown: try again
		case !ok || e.State == lineageReverted:
			return false, fmt.Errorf("end replace segments of %s (entry %s): %w", table, id, ErrReplaceAborted)
		}
		return e.State == lineageCompleted, nil
	}
	return call{policy: c.Retry, write: &w, settle: settle}.run(ctx, func(ctx context.Context) error {
		return c.send(ctx, r, nil)
	})
}

// RevertReplace abandons an open lineage entry; the controller deletes its
// To segments, and floe deletes their deep-store objects. Reverting an
// entry that is already reverted or gone succeeds; an ended one is
// ErrReplaceEnded (Pinot would swap the old segments back).
func (c *Controller) RevertReplace(ctx context.Context, table, id string) error {
	e, ok, err := c.lineageEntry(ctx, table, id)
	if err != nil {
		return fmt.Errorf("revert replace segments of %s: %w", table, err)
	}
	switch {
	case !ok:
		return nil
	case e.State == lineageCompleted:
		return fmt.Errorf("revert replace segments of %s (entry %s): %w", table, id, ErrReplaceEnded)
	case e.State == lineageInProgress:
		body, _ := jsonBody(map[string]any{})
		w := Write{Op: OpRevertReplace, Table: table, Destructive: true}
		r := request{op: "revert replace segments of " + table, method: http.MethodPost,
			path:  "/segments/" + url.PathEscape(table) + "/revertReplaceSegments",
			query: url.Values{"type": {"OFFLINE"}, "segmentLineageEntryId": {id}, "forceRevert": {"true"}}, body: body}
		settle := func(ctx context.Context) (bool, error) {
			e, ok, err := c.lineageEntry(ctx, table, id)
			return err == nil && (!ok || e.State == lineageReverted), nil
		}
		err := call{policy: c.Retry, write: &w, settle: settle}.run(ctx, func(ctx context.Context) error {
			return c.send(ctx, r, nil)
		})
		if err != nil {
			return err
		}
	}
	return c.deleteObjects(ctx, table, e.SegmentsTo)
}

// lineage reads the table's segment lineage (no entries when it has none).
func (c *Controller) lineage(ctx context.Context, table string) (map[string]lineageEntry, error) {
	var out struct {
		Entries map[string]lineageEntry `json:"lineageEntries"`
	}
	r := request{op: "read segment lineage of " + table, method: http.MethodGet,
		path: "/segments/" + url.PathEscape(table) + "/lineage", query: url.Values{"type": {"OFFLINE"}}}
	if err := c.read(ctx, r, &out); err != nil {
		return nil, err
	}
	return out.Entries, nil
}

// lineageEntry reads one entry of the table's segment lineage.
func (c *Controller) lineageEntry(ctx context.Context, table, id string) (lineageEntry, bool, error) {
	entries, err := c.lineage(ctx, table)
	if err != nil {
		return lineageEntry{}, false, err
	}
	e, ok := entries[id]
	return e, ok, nil
}

// revertedName returns a name of to that a reverted entry lists in its To
// list, or "".
func revertedName(entries map[string]lineageEntry, to []string) (name, id string) {
	for id, e := range entries {
		if e.State != lineageReverted {
			continue
		}
		for _, s := range e.SegmentsTo {
			if slices.Contains(to, s) {
				return s, id
			}
		}
	}
	return "", ""
}
