package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"time"

	"github.com/floehq/floe/api"
	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/cpuprofile"
	"github.com/floehq/floe/watcher"
)

// timing is the latencies of one measured operation.
type timing struct {
	name    string
	samples []time.Duration
	bytes   int
}

func (t timing) quantile(q float64) time.Duration {
	s := slices.Clone(t.samples)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

type results struct {
	page, pageChanged, filtered, summary, all, old timing
}

// noLoader refuses every load: the watcher is only asked for statuses.
type noLoader struct{}

func (noLoader) LoadTable(context.Context, checkpoint.Table) (*watcher.Source, error) {
	return nil, errors.New("tablebench loads no tables")
}

func measure(ctx context.Context, o options, url string, stderr io.Writer) (results, error) {
	store, err := checkpoint.NewRedis(ctx, checkpoint.RedisOptions{URL: url})
	if err != nil {
		return results{}, err
	}
	defer store.Close()
	start := time.Now()
	if err := populate(ctx, store, o, time.Now().UTC()); err != nil {
		return results{}, fmt.Errorf("populate: %w", err)
	}
	fmt.Fprintf(stderr, "tablebench: populated in %s\n", time.Since(start).Round(time.Millisecond))
	w := watcher.New(watcher.Deps{Store: store, Loader: noLoader{}, Logger: slog.New(slog.DiscardHandler)},
		watcher.Options{Owner: "bench", LeaseTTL: time.Minute, WorkDir: filepath.Join(o.dir, "work")})
	if err := w.Refresh(ctx); err != nil {
		return results{}, fmt.Errorf("watcher refresh: %w", err)
	}
	srv := httptest.NewServer(api.New(store, w, nil, nil, "bench", api.Options{StoreTimeout: 10 * time.Second}).Handler())
	defer srv.Close()
	c := &client{base: srv.URL, http: srv.Client()}

	if o.cpuProfile != "" {
		stop, err := cpuprofile.Start(o.cpuProfile)
		if err != nil {
			return results{}, err
		}
		defer stop()
	}
	var res results
	pages := (o.tables + 99) / 100
	if res.page, err = c.time("page", o.requests, func(i int) string {
		return fmt.Sprintf("/api/v1/tables?pageSize=100&page=%d", 1+i%pages)
	}, nil); err != nil {
		return res, err
	}
	touch := func(i int) error { return touchTable(ctx, store, tableName(i%o.tables)) }
	if res.pageChanged, err = c.time("page after a table change", max(o.requests/4, 1), func(int) string {
		return "/api/v1/tables?pageSize=100"
	}, touch); err != nil {
		return res, err
	}
	if res.filtered, err = c.time("filtered and sorted page", o.requests, func(int) string {
		return "/api/v1/tables?pageSize=100&state=IDLE,FAILED&sort=-lag"
	}, nil); err != nil {
		return res, err
	}
	if res.summary, err = c.time("summary", o.requests, func(int) string { return "/api/v1/summary" }, nil); err != nil {
		return res, err
	}
	if res.all, err = c.time("every table in one answer", max(o.requests/4, 1), func(int) string {
		return fmt.Sprintf("/api/v1/tables?pageSize=%d", min(o.tables, 1000))
	}, nil); err != nil {
		return res, err
	}
	res.old, err = timeOldPath(ctx, store, w, o.oldRequests)
	return res, err
}

// touchTable writes a table record again, which moves the store revision
// (the next listing reads every table record).
func touchTable(ctx context.Context, s checkpoint.Store, name string) error {
	_, err := checkpoint.UpdateTableFunc(ctx, s, name, 3, func(t *checkpoint.Table) error {
		t.UpdatedAt = time.Now().UTC()
		return nil
	})
	return err
}

type client struct {
	base string
	http *http.Client
}

// time sends n timed GETs (after three untimed ones), calling before,
// untimed, ahead of each.
func (c *client) time(name string, n int, path func(int) string, before func(int) error) (timing, error) {
	t := timing{name: name}
	for i := -3; i < n; i++ {
		if before != nil {
			if err := before(i + 3); err != nil {
				return t, err
			}
		}
		start := time.Now()
		size, err := c.get(path(max(i, 0)))
		took := time.Since(start)
		if err != nil {
			return t, fmt.Errorf("%s: %w", name, err)
		}
		if i >= 0 {
			t.samples, t.bytes = append(t.samples, took), size
		}
	}
	return t, nil
}

func (c *client) get(path string) (int, error) {
	resp, err := c.http.Get(c.base + path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %d %.300s", path, resp.StatusCode, b)
	}
	return len(b), nil
}

// oldView is what the listing answered per table before it was batched.
type oldView struct {
	Table      checkpoint.Table
	Status     watcher.TableStatus
	Checkpoint *checkpoint.CheckpointSummary
	LastRun    *checkpoint.Run
}

// timeOldPath replays the store reads of the listing before this change:
// every table record, then per table its status, checkpoint summary and
// newest run, one round trip after another, and the whole list encoded.
func timeOldPath(ctx context.Context, s checkpoint.Store, w *watcher.Watcher, n int) (timing, error) {
	t := timing{name: "per-table reads (before)"}
	for i := -1; i < n; i++ {
		start := time.Now()
		tables, err := s.ListTables(ctx)
		if err != nil {
			return t, err
		}
		out := make([]oldView, 0, len(tables))
		for _, tb := range tables {
			v := oldView{Table: tb}
			if v.Status, err = w.TableState(ctx, tb.Name); err != nil {
				return t, err
			}
			if cp, err := s.GetCheckpointSummary(ctx, tb.Name); err == nil {
				v.Checkpoint = &cp
			}
			runs, err := s.ListRuns(ctx, tb.Name, 1)
			if err != nil {
				return t, err
			}
			if len(runs) > 0 {
				v.LastRun = &runs[0]
			}
			out = append(out, v)
		}
		b, err := json.MarshalIndent(map[string]any{"tables": out}, "", "  ")
		if err != nil {
			return t, err
		}
		if i >= 0 {
			t.samples, t.bytes = append(t.samples, time.Since(start)), len(b)
		}
	}
	return t, nil
}
