package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/internal/config"
)

func TestLoad_NotifyQueues(t *testing.T) {
	file := `
notifications:
  debounce: 1s
  queues:
    - url: https://sqs.eu-west-1.amazonaws.com/111122223333/lake-events
connections:
  glue:
    type: glue
    notifications:
      url: https://sqs.eu-west-1.amazonaws.com/111122223333/glue-events
      waitTime: 5s
      malformed: keep
`
	cfg, err := config.Load(writeFile(t, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	qs := cfg.NotifyQueues()
	if len(qs) != 2 {
		t.Fatalf("NotifyQueues = %+v, want 2", qs)
	}
	if q := qs[0]; q.Name != "lake-events" || q.WaitTime != 20*time.Second || q.VisibilityTimeout != time.Minute ||
		q.Malformed != "delete" || len(q.Connections) != 0 {
		t.Fatalf("global queue = %+v, want defaults", q)
	}
	if q := qs[1]; q.Name != "glue-events" || q.WaitTime != 5*time.Second || q.Malformed != "keep" ||
		len(q.Connections) != 1 || q.Connections[0] != "glue" {
		t.Fatalf("connection queue = %+v", q)
	}
	if cfg.Notifications.Debounce != time.Second || cfg.Notifications.MaxDelay != 5*time.Second {
		t.Fatalf("notifications = %+v", cfg.Notifications)
	}
}

func TestLoad_NotifyErrors(t *testing.T) {
	const q = "https://sqs.eu-west-1.amazonaws.com/1/q"
	cases := []struct{ name, file, field string }{
		{"no url", "notifications:\n  queues:\n    - name: x\n", "notifications.queues[0].url"},
		{"bad scheme", "notifications:\n  queues:\n    - url: sqs://q\n", "notifications.queues[0].url"},
		{"long wait", "notifications:\n  queues:\n    - url: " + q + "\n      waitTime: 30s\n", "notifications.queues[0].waitTime"},
		{"short visibility", "notifications:\n  queues:\n    - url: " + q + "\n      visibilityTimeout: 10ms\n", "notifications.queues[0].visibilityTimeout"},
		{"malformed", "notifications:\n  queues:\n    - url: " + q + "\n      malformed: drop\n", "notifications.queues[0].malformed"},
		{"half credentials", "notifications:\n  queues:\n    - url: " + q + "\n      accessKeyID: AKIA\n", "notifications.queues[0].secretAccessKey"},
		{"same queue twice", "notifications:\n  queues:\n    - url: " + q + "\n    - url: " + q + "\n", "notifications.queues[1].url"},
		{"under a connection", "connections:\n  g:\n    type: glue\n    notifications:\n      url: ftp://x\n", "connections.g.notifications.url"},
		{"max delay below debounce", "notifications:\n  debounce: 2s\n  maxDelay: 1s\n", "notifications.maxDelay"},
		{"webhook rate", "notifications:\n  webhookPerMinute: -1\n", "notifications.webhookPerMinute"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := config.Load(writeFile(t, c.file), nil)
			if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), c.field) {
				t.Fatalf("Load = %v, want ErrInvalid naming %s", err, c.field)
			}
		})
	}
}
