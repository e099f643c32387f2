package lake

import (
	"context"
	"fmt"
	"path/filepath"
)

// Overwrite replaces every data file of the table by files new copies of
// the template in one overwrite snapshot (an INSERT OVERWRITE of the whole
// table).
func (l *Lake) Overwrite(ctx context.Context, files int) error {
	tbl, tasks, err := l.liveFiles(ctx)
	if err != nil {
		return err
	}
	old := make([]string, len(tasks))
	for i, tk := range tasks {
		old[i] = tk.File.FilePath()
	}
	added := make([]string, files)
	for i := range added {
		p := filepath.Join(l.dataDir, fmt.Sprintf("o%06d.parquet", i))
		if err := copyFile(l.template, p); err != nil {
			return err
		}
		added[i] = "file://" + p
	}
	tx := tbl.NewTransaction()
	if err := tx.ReplaceDataFiles(ctx, old, added, nil); err != nil {
		return fmt.Errorf("overwrite %d files by %d: %w", len(old), files, err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit overwrite: %w", err)
	}
	l.Files = files
	return nil
}
