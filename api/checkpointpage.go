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
	Page               int                          `json:"page"`
	PageSize           int                          `json:"pageSize"`
	Total              int                          `json:"total"`
	Pages              int                          `json:"pages"`
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
	total := len(paths)
	lo := min((page-1)*size, total)
	out := checkpointPage{Summary: cp.Summary(), SnapshotFileCounts: cp.SnapshotFileCounts, Files: []fileView{},
		Page: page, PageSize: size, Total: total, Pages: max(1, (total+size-1)/size)}
	for _, p := range paths[lo:min(lo+size, total)] {
		out.Files = append(out.Files, fileView{Path: p, FileState: cp.Files[p]})
	}
	writeJSON(w, http.StatusOK, out)
}
