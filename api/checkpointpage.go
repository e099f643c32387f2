package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/floehq/floe/checkpoint"
)

// fileView is one data file of a checkpoint page.
type fileView struct {
	Path string `json:"path"`
	checkpoint.FileState
}

// checkpointPage is the answer of GET /api/v1/tables/{name}/checkpoint.
type checkpointPage struct {
	Summary            checkpoint.CheckpointSummary `json:"summary"`
	SnapshotFileCounts map[int64]int                `json:"snapshotFileCounts,omitempty"`
	Files              []fileView                   `json:"files"`
	pageInfo
}

// handleCheckpoint answers the checkpoint's summary and one page of its
// file→segment map, sorted by path; q keeps the paths that contain it
// (ignoring case).
func (s *Server) handleCheckpoint(w http.ResponseWriter, r *http.Request) {
	page, size, err := pageParams(r.URL.Query())
	if err != nil {
		s.writeErr(w, err)
		return
	}
	cp, err := s.store.GetCheckpoint(r.Context(), r.PathValue("name"))
	if err != nil {
		s.writeErr(w, err)
		return
	}
	q := strings.ToLower(r.URL.Query().Get("q"))
	paths := make([]string, 0, len(cp.Files))
	for p := range cp.Files {
		if q == "" || strings.Contains(strings.ToLower(p), q) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	pi := newPageInfo(page, size, len(paths))
	out := checkpointPage{Summary: cp.Summary(), SnapshotFileCounts: cp.SnapshotFileCounts, Files: []fileView{}, pageInfo: pi}
	lo, hi := pi.bounds()
	for _, p := range paths[lo:hi] {
		out.Files = append(out.Files, fileView{Path: p, FileState: cp.Files[p]})
	}
	writeJSON(w, http.StatusOK, out)
}
