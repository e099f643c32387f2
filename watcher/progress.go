package watcher

// RunProgress is how far a running run is: files of the target snapshot
// in Pinot out of all its files, and rows converted so far.
type RunProgress struct {
	FilesDone  int   `json:"filesDone"`
	FilesTotal int   `json:"filesTotal"`
	Rows       int64 `json:"rows"`
	// Batched: the run commits in batches (a backfill), so Pinot already
	// serves the files done.
	Batched bool `json:"batched"`
}

// startProgress opens the progress of the table's run.
func (w *Watcher) startProgress(table string, done, total int, batched bool) {
	w.progMu.Lock()
	defer w.progMu.Unlock()
	w.progress[table] = &RunProgress{FilesDone: done, FilesTotal: total, Batched: batched}
}

// noteProgress adds converted files and rows.
func (w *Watcher) noteProgress(table string, files int, rows int64) {
	w.progMu.Lock()
	defer w.progMu.Unlock()
	if p := w.progress[table]; p != nil {
		p.FilesDone += files
		p.Rows += rows
	}
}

// progressOf returns files done and total of the table's run.
func (w *Watcher) progressOf(table string) (done, total int) {
	p, _ := w.Progress(table)
	return p.FilesDone, p.FilesTotal
}

// Progress returns the progress of the table's running run, if any.
func (w *Watcher) Progress(table string) (RunProgress, bool) {
	w.progMu.Lock()
	defer w.progMu.Unlock()
	p := w.progress[table]
	if p == nil {
		return RunProgress{}, false
	}
	return *p, true
}

// endProgress forgets the table's run progress.
func (w *Watcher) endProgress(table string) {
	w.progMu.Lock()
	defer w.progMu.Unlock()
	delete(w.progress, table)
}
