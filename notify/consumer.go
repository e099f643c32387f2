package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/floehq/floe/internal/sleep"
)

// Queue is a message queue a Consumer reads (SQSQueue; MemoryQueue in
// tests). Messages received stay invisible to other receivers for the
// visibility timeout; one not deleted by then is delivered again.
type Queue interface {
	// Receive long-polls for up to max messages, waiting up to wait.
	Receive(ctx context.Context, max int, wait, visibility time.Duration) ([]Message, error)
	// Delete removes handled messages by receipt handle (in batches).
	Delete(ctx context.Context, receipts []string) error
	// Release makes a message visible again after d (0: at once).
	Release(ctx context.Context, receipt string, d time.Duration) error
	// Describe reads the queue's attributes: whether a dead-letter queue
	// takes messages received too often.
	Describe(ctx context.Context) (QueueInfo, error)
}

// Message is one received message.
type Message struct {
	ID      string
	Receipt string
	Body    []byte
}

// QueueInfo is what a Consumer reads of its queue at start.
type QueueInfo struct {
	// DeadLetter is the ARN of the queue's dead-letter queue ("" none).
	DeadLetter string
	// MaxReceives is how often a message is received before it moves there.
	MaxReceives int
}

// ConsumerOptions configure one queue's consumer.
type ConsumerOptions struct {
	// Name names the queue in logs, the status page and metrics labels' place.
	Name string
	// Connections: only tables of these connections are triggered (none: all).
	Connections []string
	// Wait is the long-poll wait (default 20s, SQS's maximum); Visibility
	// the visibility timeout of received messages (default 60s).
	Wait, Visibility time.Duration
	// KeepMalformed leaves messages floe cannot read on the queue, for its
	// redrive policy to move to the dead-letter queue; by default they are
	// counted, logged and deleted.
	KeepMalformed bool
	// RetryAfter is how soon a message that failed (the tables could not
	// be read) is delivered again (default 10s).
	RetryAfter time.Duration
}

func (o ConsumerOptions) withDefaults() ConsumerOptions {
	if o.Wait <= 0 {
		o.Wait = 20 * time.Second
	}
	if o.Visibility <= 0 {
		o.Visibility = 60 * time.Second
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = 10 * time.Second
	}
	return o
}

// batchSize is the most messages one receive returns (SQS's limit).
const batchSize = 10

// Consumer reads one queue and hands its events to the Hub (N1).
type Consumer struct {
	q       Queue
	hub     *Hub
	opts    ConsumerOptions
	log     *slog.Logger
	metrics Metrics
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// NewConsumer returns a Consumer of q; Open starts it.
func NewConsumer(q Queue, hub *Hub, logger *slog.Logger, opts ConsumerOptions) *Consumer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	opts = opts.withDefaults()
	return &Consumer{q: q, hub: hub, opts: opts, log: logger.With(slog.String("queue", opts.Name)), metrics: hub.metrics}
}

// Open reads the queue's attributes (failing when the queue cannot be
// reached) and starts receiving.
func (c *Consumer) Open(ctx context.Context) error {
	info, err := c.q.Describe(ctx)
	if err != nil {
		return fmt.Errorf("open notification queue %s: %w", c.opts.Name, err)
	}
	c.log.Info("reading change notifications", slog.String("dead_letter_queue", orDash(info.DeadLetter)),
		slog.Int("max_receives", info.MaxReceives), slog.Any("connections", c.opts.Connections))
	if info.DeadLetter == "" && c.opts.KeepMalformed {
		c.log.Warn("the queue has no dead-letter queue: messages kept as malformed are delivered again forever")
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.loop(ctx)
	}()
	return nil
}

// Close stops receiving and waits for the batch in hand.
func (c *Consumer) Close(ctx context.Context) error {
	if c.cancel != nil {
		c.cancel()
	}
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close notification queue %s: %w", c.opts.Name, ctx.Err())
	}
}

// loop receives until ctx ends, backing off while the queue fails.
func (c *Consumer) loop(ctx context.Context) {
	backoff := time.Second
	for ctx.Err() == nil {
		msgs, err := c.q.Receive(ctx, batchSize, c.opts.Wait, c.opts.Visibility)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.log.Error("receive notifications", slog.String("error", err.Error()), slog.Duration("retry_in", backoff))
			if sleep.For(ctx, backoff) != nil {
				return
			}
			backoff = min(2*backoff, 30*time.Second)
			continue
		}
		backoff = time.Second
		c.HandleBatch(ctx, msgs)
	}
}

// HandleBatch handles received messages and deletes, in one batch, those
// done with (N1): matched, unrelated and (unless KeepMalformed)
// malformed ones. A message whose tables could not be read is released
// to be delivered again after RetryAfter.
func (c *Consumer) HandleBatch(ctx context.Context, msgs []Message) {
	var done []string
	for _, m := range msgs {
		if c.handle(ctx, m) {
			done = append(done, m.Receipt)
		}
	}
	if len(done) == 0 {
		return
	}
	if err := c.q.Delete(context.WithoutCancel(ctx), done); err != nil {
		// Not deleted: they come back after the visibility timeout, and a
		// second delivery is harmless (N4).
		c.log.Error("delete notifications", slog.Int("messages", len(done)), slog.String("error", err.Error()))
	}
}

// handle handles one message and says whether it may be deleted. It
// never panics: a message that makes parsing fail is malformed.
func (c *Consumer) handle(ctx context.Context, m Message) (remove bool) {
	now := time.Now()
	defer func() {
		if p := recover(); p != nil {
			c.metrics.EventIgnored(KindUnknown, ReasonMalformed)
			c.log.Error("notification could not be read", slog.String("message_id", m.ID), slog.Any("panic", p))
			remove = !c.opts.KeepMalformed
		}
	}()
	events, err := Parse(m.Body)
	switch {
	case errors.Is(err, ErrUnrelated):
		c.metrics.EventReceived(KindUnknown)
		c.metrics.EventIgnored(KindUnknown, ReasonUnrelated)
		c.log.Debug("notification ignored", slog.String("message_id", m.ID), slog.String("reason", err.Error()))
		return true
	case err != nil:
		c.metrics.EventReceived(KindUnknown)
		c.metrics.EventIgnored(KindUnknown, ReasonMalformed)
		c.log.Warn("notification is malformed", slog.String("message_id", m.ID), slog.String("error", err.Error()),
			slog.Bool("kept", c.opts.KeepMalformed))
		return !c.opts.KeepMalformed
	}
	for _, e := range events {
		c.metrics.EventReceived(string(e.Kind))
	}
	if _, err := c.hub.Handle(ctx, c.opts.Name, c.opts.Connections, events, now); err != nil {
		c.log.Error("handle notification", slog.String("message_id", m.ID), slog.String("error", err.Error()))
		if rerr := c.q.Release(context.WithoutCancel(ctx), m.Receipt, c.opts.RetryAfter); rerr != nil {
			c.log.Error("release notification", slog.String("message_id", m.ID), slog.String("error", rerr.Error()))
		}
		return false
	}
	return true
}
