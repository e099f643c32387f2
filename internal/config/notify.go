package config

import (
	"fmt"
	"net/url"
	"sort"
	"time"
)

// Notifications are announcements of Iceberg commits that start a
// table's run at once (package notify): SQS queues fed by EventBridge,
// S3 or SNS, and the webhook. The schedule stays the backstop.
type Notifications struct {
	// Debounce is how long a table must be quiet after a notification
	// before its run starts; MaxDelay bounds the wait under a steady
	// stream of them.
	Debounce time.Duration `yaml:"debounce"`
	MaxDelay time.Duration `yaml:"maxDelay"`
	// WebhookPerMinute bounds each table's webhook calls.
	WebhookPerMinute int `yaml:"webhookPerMinute"`
	// Queues are read by every replica; each message is handled by one.
	Queues []NotifyQueue `yaml:"queues"`
}

// NotifyQueue is one SQS queue of notifications. It is global, or
// declared under a connection (connections.<name>.notifications), which
// restricts it to that connection's tables.
type NotifyQueue struct {
	// Name labels the queue in logs and on the status page (default: the
	// queue name from the URL).
	Name string `yaml:"name"`
	URL  string `yaml:"url"`
	// Region defaults to the one in URL; Endpoint reaches a local SQS.
	Region   string `yaml:"region"`
	Endpoint string `yaml:"endpoint"`
	// Connections: only tables of these connections are triggered (none: all).
	Connections []string `yaml:"connections"`
	// WaitTime is the long-poll wait (1s-20s); VisibilityTimeout how long a
	// received message stays hidden from other replicas (1s-12h).
	WaitTime          time.Duration `yaml:"waitTime"`
	VisibilityTimeout time.Duration `yaml:"visibilityTimeout"`
	// Malformed: delete (count, log, delete) or keep (leave for the
	// queue's redrive policy to move to its dead-letter queue).
	Malformed string `yaml:"malformed"`
	// Static credentials; without them the default AWS chain is used.
	AccessKeyID     string `yaml:"accessKeyID"`
	SecretAccessKey string `yaml:"secretAccessKey"`
	SessionToken    string `yaml:"sessionToken"`
}

func defaultNotifications() Notifications {
	return Notifications{Debounce: 500 * time.Millisecond, MaxDelay: 5 * time.Second, WebhookPerMinute: 60}
}

// NotifyQueues returns every queue: the global ones, then those declared
// under connections (in name order), each restricted to its connection.
// Zero fields take their defaults.
func (c *Config) NotifyQueues() []NotifyQueue {
	out := append([]NotifyQueue(nil), c.Notifications.Queues...)
	names := make([]string, 0, len(c.Connections))
	for name := range c.Connections {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if q := c.Connections[name].Notifications; q != nil {
			qc := *q
			qc.Connections = []string{name}
			out = append(out, qc)
		}
	}
	for i := range out {
		out[i] = out[i].withDefaults()
	}
	return out
}

func (q NotifyQueue) withDefaults() NotifyQueue {
	if q.Name == "" {
		if u, err := url.Parse(q.URL); err == nil {
			q.Name = lastSegment(u.Path)
		}
	}
	if q.WaitTime == 0 {
		q.WaitTime = 20 * time.Second
	}
	if q.VisibilityTimeout == 0 {
		q.VisibilityTimeout = 60 * time.Second
	}
	if q.Malformed == "" {
		q.Malformed = "delete"
	}
	return q
}

func lastSegment(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// validateNotifications checks the notifications section and the queues
// declared under connections.
func (c *Config) validateNotifications() *FieldError {
	n := c.Notifications
	switch {
	case n.Debounce < 0:
		return &FieldError{"notifications.debounce", "must not be negative"}
	case n.MaxDelay < n.Debounce:
		return &FieldError{"notifications.maxDelay", fmt.Sprintf("must be at least notifications.debounce (%s)", n.Debounce)}
	case n.WebhookPerMinute <= 0:
		return &FieldError{"notifications.webhookPerMinute", "must be positive"}
	}
	seen := map[string]string{}
	check := func(field string, q NotifyQueue) *FieldError {
		if fe := q.validate(field); fe != nil {
			return fe
		}
		if prev, dup := seen[q.URL]; dup {
			return &FieldError{field + ".url", "the queue is already read by " + prev}
		}
		seen[q.URL] = field
		return nil
	}
	for i, q := range n.Queues {
		if fe := check(fmt.Sprintf("notifications.queues[%d]", i), q); fe != nil {
			return fe
		}
	}
	for name, conn := range c.Connections {
		if conn.Notifications != nil {
			if fe := check("connections."+name+".notifications", *conn.Notifications); fe != nil {
				return fe
			}
		}
	}
	return nil
}

// validate checks one queue; field is where it is declared.
func (q NotifyQueue) validate(field string) *FieldError {
	if q.URL == "" {
		return &FieldError{field + ".url", "must be set (https://sqs.REGION.amazonaws.com/ACCOUNT/QUEUE)"}
	}
	if fe := checkURL(field+".url", q.URL, "http", "https"); fe != nil {
		return fe
	}
	if fe := checkURL(field+".endpoint", q.Endpoint, "http", "https"); fe != nil {
		return fe
	}
	if q.WaitTime != 0 && (q.WaitTime < time.Second || q.WaitTime > 20*time.Second) {
		return &FieldError{field + ".waitTime", "must be between 1s and 20s (SQS long polling)"}
	}
	if q.VisibilityTimeout != 0 && (q.VisibilityTimeout < time.Second || q.VisibilityTimeout > 12*time.Hour) {
		return &FieldError{field + ".visibilityTimeout", "must be between 1s and 12h"}
	}
	if q.Malformed != "" {
		if fe := oneOf(field+".malformed", q.Malformed, "delete", "keep"); fe != nil {
			return fe
		}
	}
	for i, c := range q.Connections {
		if c == "" {
			return &FieldError{fmt.Sprintf("%s.connections[%d]", field, i), "must not be empty"}
		}
	}
	if (q.AccessKeyID == "") != (q.SecretAccessKey == "") {
		return &FieldError{field + ".secretAccessKey", "accessKeyID and secretAccessKey go together"}
	}
	return nil
}
