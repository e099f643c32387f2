package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Label names of the notification series.
const (
	labelKind   = "kind"
	labelReason = "reason"
)

// registerNotify registers the series of notify.Metrics and
// watcher.Metrics.NotifyToRun: events by kind (glue, s3tables, s3,
// webhook, unknown) and outcome, ignored events by reason, and the time
// from a notification to the run it asked for.
func (r *Registry) registerNotify() {
	r.notifyEvents = r.counter("floe_notify_events_total",
		"Change notifications by kind (glue, s3tables, s3, webhook, unknown) and outcome (received, matched, ignored, failed).",
		labelKind, labelOutcome)
	r.notifyIgnored = r.counter("floe_notify_ignored_total",
		"Notifications that triggered no run, by reason (malformed, unrelated, unmatched, paused, ratelimited).", labelReason)
	r.notifyToRun = r.histogram("floe_notify_to_run_seconds",
		"Time from the first notification of a change to the start of the run it asked for.",
		prometheus.ExponentialBucketsRange(0.01, 600, 14))
}

// Notification outcomes (the outcome label of floe_notify_events_total).
const (
	NotifyReceived = "received"
	NotifyMatched  = "matched"
	NotifyIgnored  = "ignored"
	NotifyFailed   = "failed"
)

// EventReceived counts a notification read from a queue or the webhook.
func (r *Registry) EventReceived(kind string) {
	r.notifyEvents.WithLabelValues(kind, NotifyReceived).Inc()
}

// EventMatched counts a notification that named at least one table.
func (r *Registry) EventMatched(kind string) {
	r.notifyEvents.WithLabelValues(kind, NotifyMatched).Inc()
}

// EventIgnored counts a notification that triggers nothing, and why.
func (r *Registry) EventIgnored(kind, reason string) {
	r.notifyEvents.WithLabelValues(kind, NotifyIgnored).Inc()
	r.notifyIgnored.WithLabelValues(reason).Inc()
}

// EventFailed counts a notification that could not be handled (it is
// left on its queue and delivered again).
func (r *Registry) EventFailed(kind string) {
	r.notifyEvents.WithLabelValues(kind, NotifyFailed).Inc()
}

// NotifyToRun observes the time from a notification to its run's start.
func (r *Registry) NotifyToRun(d time.Duration) {
	r.notifyToRun.WithLabelValues().Observe(d.Seconds())
}
