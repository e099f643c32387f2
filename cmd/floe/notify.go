package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/config"
	"github.com/floehq/floe/internal/egress"
	"github.com/floehq/floe/metrics"
	"github.com/floehq/floe/notify"
	"github.com/floehq/floe/watcher"
)

// notifier is the process's notification side: the Hub (webhook and
// queues) and one consumer per configured queue.
type notifier struct {
	hub       *notify.Hub
	consumers []*notify.Consumer
}

// newNotifier wires the Hub to the watcher and makes the queues' clients;
// nothing is received before open.
func newNotifier(ctx context.Context, cfg config.Config, store checkpoint.Store, w *watcher.Watcher,
	reg *metrics.Registry, logger *slog.Logger) (*notifier, error) {
	n := cfg.Notifications
	hub := notify.NewHub(store, w, reg, logger, notify.Options{Debounce: n.Debounce, MaxDelay: n.MaxDelay,
		WebhookPerMinute: n.WebhookPerMinute})
	out := &notifier{hub: hub}
	pol := cfg.Security.EgressPolicy()
	for _, q := range cfg.NotifyQueues() {
		// The queue is an AWS endpoint like any other: its calls dial
		// under the egress policy's AWS rules.
		police := func(tr *http.Transport, timeout time.Duration) aws.HTTPClient {
			return pol.Client(egress.AWS, tr, &net.Dialer{Timeout: 30 * time.Second}, timeout, nil)
		}
		sq, err := notify.NewSQSQueue(ctx, notify.SQSOptions{URL: q.URL, Region: q.Region, Endpoint: q.Endpoint,
			AccessKeyID: q.AccessKeyID, SecretAccessKey: q.SecretAccessKey, SessionToken: q.SessionToken,
			Police: police})
		if err != nil {
			return nil, fmt.Errorf("notification queue %s: %w", q.Name, err)
		}
		out.consumers = append(out.consumers, notify.NewConsumer(sq, hub, logger, notify.ConsumerOptions{
			Name: q.Name, Connections: q.Connections, Wait: q.WaitTime, Visibility: q.VisibilityTimeout,
			KeepMalformed: q.Malformed == "keep"}))
	}
	return out, nil
}

// open starts the Hub and the consumers (after the watcher: runs need it).
func (n *notifier) open(ctx context.Context) error {
	n.hub.Open(ctx)
	for _, c := range n.consumers {
		if err := c.Open(ctx); err != nil {
			_ = n.close(context.WithoutCancel(ctx))
			return err
		}
	}
	return nil
}

// close stops receiving, then the Hub.
func (n *notifier) close(ctx context.Context) error {
	var errs []error
	for _, c := range n.consumers {
		errs = append(errs, c.Close(ctx))
	}
	errs = append(errs, n.hub.Close(ctx))
	return errors.Join(errs...)
}

// notifySecrets are the queues' credentials, for the redactor.
func notifySecrets(cfg config.Config) []string {
	var out []string
	for _, q := range cfg.NotifyQueues() {
		out = append(out, q.AccessKeyID, q.SecretAccessKey, q.SessionToken)
	}
	return out
}
