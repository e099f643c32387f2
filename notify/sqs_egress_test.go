package notify_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/floehq/floe/internal/egress"
	"github.com/floehq/floe/notify"
)

// TestSQSQueue_DialsUnderTheEgressPolicy: a queue given floe's policed
// HTTP client sends nothing to an address the policy refuses (here a
// loopback endpoint that no rule lists) and says why.
func TestSQSQueue_DialsUnderTheEgressPolicy(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	pol, err := egress.New(egress.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	police := func(tr *http.Transport, timeout time.Duration) aws.HTTPClient {
		return pol.Client(egress.AWS, tr, &net.Dialer{Timeout: time.Second}, timeout, nil)
	}
	q, err := notify.NewSQSQueue(t.Context(), notify.SQSOptions{URL: srv.URL + "/123456789012/events", Region: "us-east-1",
		Endpoint: srv.URL, AccessKeyID: "test-key-id", SecretAccessKey: "test-secret-key", Police: police})
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.Receive(t.Context(), 1, 0, time.Second)
	if err == nil || !strings.Contains(err.Error(), "egress") {
		t.Fatalf("receive from a refused address: %v, want the egress policy's refusal", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the refused endpoint got %d requests", n)
	}
}
