package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// Runner starts runs (watcher.Watcher implements it).
type Runner interface {
	// Notify runs the table because its source changed; since is when
	// the first notification of the change arrived. A paused or disabled
	// table answers watcher.ErrNotAdmitted.
	Notify(ctx context.Context, table string, since time.Time) (watcher.NotifyResult, error)
}

// Metrics hears what notifications do (metrics.Registry implements it).
// kind is an event Kind, or "unknown" for a message that could not be read.
type Metrics interface {
	EventReceived(kind string)
	EventMatched(kind string)
	EventIgnored(kind, reason string)
	EventFailed(kind string)
}

// Reasons a notification is ignored (the reason label).
const (
	ReasonMalformed   = "malformed"
	ReasonUnrelated   = "unrelated"
	ReasonUnmatched   = "unmatched"
	ReasonPaused      = "paused"
	ReasonRateLimited = "ratelimited"
)

// KindUnknown is the kind of a message that could not be read.
const KindUnknown = "unknown"

// ErrRateLimited: the table's webhook calls exceed Options.WebhookPerMinute.
var ErrRateLimited = errors.New("too many notifications for the table")

// Options tune a Hub.
type Options struct {
	// Debounce is how long a table must be quiet after a notification
	// before its run starts (default 500ms); MaxDelay bounds the wait
	// under a steady stream of them (default 5s).
	Debounce, MaxDelay time.Duration
	// WebhookPerMinute bounds each table's webhook calls (default 60).
	WebhookPerMinute int
	// IndexMaxAge: the table index is rebuilt at least this often, to
	// learn locations from new checkpoints (default 30s).
	IndexMaxAge time.Duration
}

func (o Options) withDefaults() Options {
	if o.Debounce <= 0 {
		o.Debounce = 500 * time.Millisecond
	}
	if o.MaxDelay < o.Debounce {
		o.MaxDelay = max(5*time.Second, o.Debounce)
	}
	if o.WebhookPerMinute <= 0 {
		o.WebhookPerMinute = 60
	}
	if o.IndexMaxAge <= 0 {
		o.IndexMaxAge = 30 * time.Second
	}
	return o
}

// Seen is the last notification of a table, for the status page.
type Seen struct {
	Event Event `json:"event"`
	// Via is the queue's name, or "webhook".
	Via        string    `json:"via"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// Hub turns notifications into runs: it matches events to tables,
// debounces them per table (N3) and asks the Runner for the run. Every
// source (each queue's consumer, the webhook) goes through one Hub.
type Hub struct {
	store   Tables
	runner  Runner
	metrics Metrics
	log     *slog.Logger
	opts    Options

	ixMu sync.Mutex
	ix   *index

	mu      sync.Mutex
	pending map[string]*pendingRun
	seen    map[string]Seen
	calls   map[string][]time.Time // webhook calls in the last minute, per table
	wake    chan struct{}
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// pendingRun is a table's debounce window.
type pendingRun struct {
	first, due time.Time
}

// NewHub returns a Hub; Open starts its debouncer. metrics and logger may
// be nil.
func NewHub(store Tables, runner Runner, metrics Metrics, logger *slog.Logger, opts Options) *Hub {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if metrics == nil {
		metrics = noMetrics{}
	}
	return &Hub{store: store, runner: runner, metrics: metrics, log: logger, opts: opts.withDefaults(),
		pending: map[string]*pendingRun{}, seen: map[string]Seen{}, calls: map[string][]time.Time{},
		wake: make(chan struct{}, 1)}
}

// Open starts the debouncer.
func (h *Hub) Open(ctx context.Context) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.cancel = cancel
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.loop(ctx)
	}()
}

// Close stops the debouncer; pending windows are dropped (the schedule is
// the backstop).
func (h *Hub) Close(ctx context.Context) error {
	if h.cancel != nil {
		h.cancel()
	}
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close notifications: %w", ctx.Err())
	}
}

// Handle matches the events of one message (via names its queue) and
// opens or extends each matched table's debounce window. It returns how
// many tables matched; an error only when the tables could not be read,
// and then the message should be delivered again.
func (h *Hub) Handle(ctx context.Context, via string, connections []string, events []Event, received time.Time) (int, error) {
	ix, err := h.index(ctx, received)
	if err != nil {
		for _, e := range events {
			h.metrics.EventFailed(string(e.Kind))
		}
		return 0, err
	}
	ix = ix.restrict(connections)
	matched := 0
	for _, e := range events {
		names := ix.match(e)
		if len(names) == 0 {
			h.metrics.EventIgnored(string(e.Kind), ReasonUnmatched)
			h.log.Debug("notification names no registered table", slog.String("via", via),
				slog.String("kind", string(e.Kind)), slog.String("event", e.ID))
			continue
		}
		h.metrics.EventMatched(string(e.Kind))
		for _, name := range names {
			h.arm(name, Seen{Event: e, Via: via, ReceivedAt: received})
		}
		matched += len(names)
	}
	return matched, nil
}

// index returns the table index, rebuilt when the store's table revision
// moved or it is older than IndexMaxAge.
func (h *Hub) index(ctx context.Context, now time.Time) (*index, error) {
	rev, err := h.store.TableRevision(ctx)
	if err != nil {
		return nil, fmt.Errorf("read table revision: %w", err)
	}
	h.ixMu.Lock()
	defer h.ixMu.Unlock()
	if h.ix != nil && h.ix.revision == rev && now.Sub(h.ix.built) < h.opts.IndexMaxAge {
		return h.ix, nil
	}
	ix, err := buildIndex(ctx, h.store, now)
	if err != nil {
		return nil, err
	}
	h.ix = ix
	return ix, nil
}

// Webhook handles POST /api/v1/tables/{name}/notify: the table must
// exist (checkpoint.ErrNotFound); a paused or disabled one ignores the
// call (ignored true); more than WebhookPerMinute calls a minute answer
// ErrRateLimited with the wait. Calls within one debounce window start
// one run, so repeating a call is harmless.
func (h *Hub) Webhook(ctx context.Context, table string, e Event, now time.Time) (ignored bool, retry time.Duration, err error) {
	h.metrics.EventReceived(string(KindWebhook))
	t, err := h.store.GetTable(ctx, table)
	if err != nil {
		h.metrics.EventIgnored(string(KindWebhook), ReasonUnmatched)
		return false, 0, fmt.Errorf("notify %s: %w", table, err)
	}
	if wait, ok := h.allow(table, now); !ok {
		h.metrics.EventIgnored(string(KindWebhook), ReasonRateLimited)
		return false, wait, fmt.Errorf("notify %s: %w (%d a minute)", table, ErrRateLimited, h.opts.WebhookPerMinute)
	}
	e.Kind = KindWebhook
	if watcher.Paused(t.TaskConfig) || !watcher.Enabled(t.TaskConfig) {
		h.metrics.EventIgnored(string(KindWebhook), ReasonPaused)
		h.note(table, Seen{Event: e, Via: string(KindWebhook), ReceivedAt: now})
		return true, 0, nil
	}
	h.metrics.EventMatched(string(KindWebhook))
	h.arm(table, Seen{Event: e, Via: string(KindWebhook), ReceivedAt: now})
	return false, 0, nil
}

// allow takes one of the table's webhook calls for the minute ending at
// now, or says how long until one is free.
func (h *Hub) allow(table string, now time.Time) (time.Duration, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	recent := h.calls[table][:0]
	for _, at := range h.calls[table] {
		if now.Sub(at) < time.Minute {
			recent = append(recent, at)
		}
	}
	if len(recent) >= h.opts.WebhookPerMinute {
		h.calls[table] = recent
		return time.Minute - now.Sub(recent[0]), false
	}
	h.calls[table] = append(recent, now)
	return 0, true
}

// LastEvent returns the last notification this replica received for the
// table.
func (h *Hub) LastEvent(table string) (Seen, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.seen[table]
	return s, ok
}

func (h *Hub) note(table string, s Seen) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen[table] = s
}

// arm opens the table's debounce window, or extends it: the run is due
// Debounce after the last notification, and at most MaxDelay after the
// first (N3).
func (h *Hub) arm(table string, s Seen) {
	h.mu.Lock()
	h.seen[table] = s
	p, ok := h.pending[table]
	if !ok {
		p = &pendingRun{first: s.ReceivedAt}
		h.pending[table] = p
	}
	p.due = s.ReceivedAt.Add(h.opts.Debounce)
	if limit := p.first.Add(h.opts.MaxDelay); p.due.After(limit) {
		p.due = limit
	}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// loop starts the runs whose window closed and sleeps until the next.
func (h *Hub) loop(ctx context.Context) {
	for {
		wait := h.fireDue(ctx, time.Now())
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		case <-h.wake:
			timer.Stop()
		}
	}
}

// fireDue asks for the run of every table whose window closed by now.
func (h *Hub) fireDue(ctx context.Context, now time.Time) time.Duration {
	h.mu.Lock()
	due := map[string]time.Time{}
	wait := time.Minute
	for name, p := range h.pending {
		if !p.due.After(now) {
			due[name] = p.first
			delete(h.pending, name)
		} else if d := p.due.Sub(now); d < wait {
			wait = d
		}
	}
	h.mu.Unlock()
	for name, first := range due {
		h.run(ctx, name, first)
	}
	return wait
}

// run asks the Runner for one run of the table.
func (h *Hub) run(ctx context.Context, name string, first time.Time) {
	kind := string(KindUnknown)
	if s, ok := h.LastEvent(name); ok {
		kind = string(s.Event.Kind)
	}
	res, err := h.runner.Notify(ctx, name, first)
	switch {
	case err == nil:
		h.log.Debug("notification starts a run", slog.String("table", name), slog.String("run_id", res.RunID),
			slog.Bool("queued", res.Queued))
	case errors.Is(err, watcher.ErrNotAdmitted):
		h.metrics.EventIgnored(kind, ReasonPaused)
	case errors.Is(err, checkpoint.ErrNotFound):
		h.metrics.EventIgnored(kind, ReasonUnmatched)
	case ctx.Err() == nil:
		h.metrics.EventFailed(kind)
		h.log.Error("notify table", slog.String("table", name), slog.String("error", err.Error()))
	}
}

// noMetrics is the Metrics of a Hub without one.
type noMetrics struct{}

func (noMetrics) EventReceived(string)        {}
func (noMetrics) EventMatched(string)         {}
func (noMetrics) EventIgnored(string, string) {}
func (noMetrics) EventFailed(string)          {}
