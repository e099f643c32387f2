//go:build integration

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/lakefixture"
	"github.com/floehq/floe/internal/testpeer"
)

// notifyEnv is two real `floe serve` replicas (one Redis, one segment
// directory) reading one SQS queue in moto, over a lake in moto's S3:
// demo.events and demo.other through a SQL catalog on sqlite, demo.orders
// also registered in moto's Glue.
type notifyEnv struct {
	*serveCluster
	moto     string
	queueURL string
	sqs      *sqs.Client
	glue     *glue.Client
	events   *demoLake // demo.events
	orders   *demoLake // demo.orders (the Glue table)
	sent     int       // events put on the queue
}

func motoConfig(endpoint string) aws.Config {
	return aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("testing", "testing", "")}
}

// openS3Lake opens the lake's SQL catalog (warehouse in moto's S3) with
// the table demo.<name>.
func openS3Lake(t *testing.T, dir, moto, name string) *demoLake {
	t.Helper()
	lake := lakefixture.OpenT(t, lakefixture.Options{Name: "lake", DBPath: filepath.Join(dir, "lake.db"), Warehouse: "s3://lake/wh",
		Props:       iceberg.Properties{"s3.endpoint": moto, "s3.region": "us-east-1", "s3.access-key-id": "testing", "s3.secret-access-key": "testing"},
		BusyTimeout: 10 * time.Second})
	l := &demoLake{db: lake.DB, cat: lake.Catalog, ident: table.Identifier{"demo", name}, rng: rand.New(rand.NewPCG(3, 4))}
	if err := l.ensureTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	return l
}

func newNotifyEnv(t *testing.T) *notifyEnv {
	t.Helper()
	ctx := t.Context()
	moto := testpeer.StartMoto(t)
	cfg := motoConfig(moto)
	if _, err := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }).CreateBucket(ctx,
		&s3.CreateBucketInput{Bucket: aws.String("lake")}); err != nil {
		t.Fatal(err)
	}
	e := &notifyEnv{moto: moto, sqs: sqs.NewFromConfig(cfg), glue: glue.NewFromConfig(cfg)}
	q, err := e.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("floe-events")})
	if err != nil {
		t.Fatal(err)
	}
	e.queueURL = aws.ToString(q.QueueUrl)
	dir := t.TempDir()
	e.events, e.orders = openS3Lake(t, dir, moto, "events"), openS3Lake(t, dir, moto, "orders")
	openS3Lake(t, dir, moto, "other")
	for _, l := range []*demoLake{e.events, e.orders} {
		if _, err := l.appendRows(ctx, 10); err != nil {
			t.Fatal(err)
		}
	}
	e.registerGlue(t)
	e.serveCluster = e.startReplicas(t, dir, 2)
	return e
}

// registerGlue registers demo.orders in moto's Glue at its current metadata.
func (e *notifyEnv) registerGlue(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	if _, err := e.glue.CreateDatabase(ctx, &glue.CreateDatabaseInput{DatabaseInput: &gluetypes.DatabaseInput{Name: aws.String("demo")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.glue.CreateTable(ctx, &glue.CreateTableInput{DatabaseName: aws.String("demo"), TableInput: &gluetypes.TableInput{
		Name: aws.String("orders"), TableType: aws.String("EXTERNAL_TABLE"),
		Parameters: map[string]string{"table_type": "ICEBERG", "metadata_location": e.metadata(t, e.orders)}}}); err != nil {
		t.Fatal(err)
	}
}

// metadata returns the lake table's current metadata location.
func (e *notifyEnv) metadata(t *testing.T, l *demoLake) string {
	t.Helper()
	tbl, err := l.cat.LoadTable(t.Context(), l.ident)
	if err != nil {
		t.Fatal(err)
	}
	return tbl.MetadataLocation()
}

// startReplicas starts floe serve replicas reading the queue.
func (e *notifyEnv) startReplicas(t *testing.T, dir string, n int) *serveCluster {
	t.Helper()
	redisURL := testpeer.StartRedis(t)
	bin := buildFloe(t)
	cfgPath := filepath.Join(dir, "floe.yaml")
	yaml := fmt.Sprintf(`notifications: # the default debounce (500ms) and maxDelay (5s)
  queues:
    - name: lake-events
      url: %s
      endpoint: %s
      region: us-east-1
      accessKeyID: testing
      secretAccessKey: testing
      waitTime: 1s
      visibilityTimeout: 30s
`, e.queueURL, e.moto)
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &serveCluster{t: t}
	for i := range n {
		addr := "127.0.0.1:" + strconv.Itoa(testpeer.FreePort(t))
		p := testpeer.Start(t, testpeer.ProcessSpec{Name: fmt.Sprintf("floe-%c", 'a'+i), Cmd: bin, Args: []string{"serve"}, Dir: dir,
			Env: []string{"FLOE_CONFIG=" + cfgPath, "FLOE_STORE_REDIS_URL=" + redisURL, "FLOE_SERVER_ADDR=" + addr,
				"FLOE_PINOT_SEGMENTDIR=" + filepath.Join(dir, "segments"),
				"FLOE_WATCHER_WORKDIR=" + filepath.Join(dir, fmt.Sprintf("work-%d", i)),
				"FLOE_WATCHER_OWNER=" + fmt.Sprintf("replica-%c", 'a'+i), "FLOE_LOG_LEVEL=debug",
				"FLOE_SECURITY_LOCALROOTS=" + dir, "FLOE_SECURITY_EGRESS_ALLOW=127.0.0.0/8,::1",
				"AWS_ACCESS_KEY_ID=testing", "AWS_SECRET_ACCESS_KEY=testing"}})
		t.Cleanup(p.Stop)
		testpeer.WaitHTTP(t, "http://"+addr+"/healthz", 60*time.Second, nil)
		c.addrs, c.procs = append(c.addrs, addr), append(c.procs, p)
	}
	s3Props := map[string]string{"s3.endpoint": e.moto, "s3.region": "us-east-1"}
	// moto takes any key; floe wants secrets of at least 8 bytes.
	secrets := map[string]string{"access-key-id": "testing-key", "secret-access-key": "testing-secret"}
	props := map[string]string{"uri": filepath.Join(dir, "lake.db"), "catalog-name": "lake"}
	for k, v := range s3Props {
		props[k] = v
	}
	c.must(0, "POST", "/api/v1/connections", map[string]any{"name": "lake", "type": "sql", "props": props, "secrets": secrets},
		http.StatusCreated, nil)
	c.must(0, "POST", "/api/v1/connections", map[string]any{"name": "glue", "type": "glue",
		"props": map[string]string{"region": "us-east-1", "endpoint": e.moto}, "secrets": secrets}, http.StatusCreated, nil)
	// A yearly schedule: every run after the first is one a notification asked for.
	for _, tb := range []struct{ name, conn, table string }{
		{"events", "lake", "events"}, {"other", "lake", "other"}, {"orders", "glue", "orders"},
	} {
		c.must(0, "POST", "/api/v1/tables", map[string]any{"connection": tb.conn, "namespace": "demo", "table": tb.table,
			"name": tb.name, "schedule": "0 0 1 1 *"}, http.StatusCreated, nil)
	}
	for _, name := range []string{"events", "other", "orders"} {
		waitUntil(t, name+"'s first run", 60*time.Second, func() bool { return completed(c.runs(name)) > 0 })
	}
	return c
}

// send puts one message on the queue.
func (e *notifyEnv) send(t *testing.T, body string) {
	t.Helper()
	if _, err := e.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(e.queueURL),
		MessageBody: aws.String(body)}); err != nil {
		t.Fatal(err)
	}
	e.sent++
}

// sendBatches puts the bodies on the queue, ten to a SendMessageBatch.
func (e *notifyEnv) sendBatches(t *testing.T, bodies []string) {
	t.Helper()
	for len(bodies) > 0 {
		n := min(10, len(bodies))
		entries := make([]sqstypes.SendMessageBatchRequestEntry, n)
		for i, b := range bodies[:n] {
			entries[i] = sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(b)}
		}
		out, err := e.sqs.SendMessageBatch(t.Context(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(e.queueURL), Entries: entries})
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("send a batch of %d messages: %v %+v", n, err, out)
		}
		e.sent += n
		bodies = bodies[n:]
	}
}

// s3Created is the S3 notification of a new object at loc (s3://bucket/key).
func s3Created(loc string) string {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(loc, "s3://"), "/")
	return fmt.Sprintf(`{"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"us-east-1",`+
		`"eventTime":%q,"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":%q},"object":{"key":%q}}}]}`,
		time.Now().UTC().Format(time.RFC3339Nano), bucket, key)
}

// glueChanged is the EventBridge event of a Glue table update, in an SNS envelope.
func glueChanged(db, name string) string {
	inner := fmt.Sprintf(`{"version":"0","id":"%d","detail-type":"Glue Data Catalog Table State Change","source":"aws.glue",`+
		`"account":%q,"time":%q,"region":"us-east-1","resources":[],"detail":{"databaseName":%q,"tableName":%q,"typeOfChange":"UpdateTable"}}`,
		time.Now().UnixNano(), testpeer.MotoAccount, time.Now().UTC().Format(time.RFC3339), db, name)
	b, _ := json.Marshal(map[string]string{"Type": "Notification", "MessageId": "m", "Message": inner})
	return string(b)
}

// s3TablesUpdated is the EventBridge event of a CloudTrail record of an
// UpdateTableMetadataLocation call.
func s3TablesUpdated(bucketARN, ns, name, loc string) string {
	return fmt.Sprintf(`{"version":"0","id":"%d","detail-type":"AWS API Call via CloudTrail","source":"aws.s3tables",`+
		`"account":%q,"time":%q,"region":"us-east-1","detail":{"eventSource":"s3tables.amazonaws.com",`+
		`"eventName":"UpdateTableMetadataLocation","requestParameters":{"tableBucketARN":%q,"namespace":%q,"name":%q,`+
		`"versionToken":"v","metadataLocation":%q}}}`,
		time.Now().UnixNano(), testpeer.MotoAccount, time.Now().UTC().Format(time.RFC3339), bucketARN, ns, name, loc)
}

// notifyRuns returns the table's completed runs a notification asked for
// that synced something.
func notifyRuns(runs []checkpoint.Run) []checkpoint.Run {
	var out []checkpoint.Run
	for _, r := range runs {
		if r.Trigger == "notify" && r.Status == checkpoint.RunCompleted && r.SnapshotID != 0 {
			out = append(out, r)
		}
	}
	return out
}

// checkpointOf reads a table's checkpoint summary.
func (e *notifyEnv) checkpointOf(name string) checkpoint.CheckpointSummary {
	var v struct {
		Checkpoint checkpoint.CheckpointSummary `json:"checkpoint"`
	}
	e.must(0, "GET", "/api/v1/tables/"+name, nil, http.StatusOK, &v)
	return v.Checkpoint
}

// waitSynced waits until the table's checkpoint is at the lake table's
// current snapshot, and returns it.
func (e *notifyEnv) waitSynced(t *testing.T, name string, l *demoLake) checkpoint.CheckpointSummary {
	t.Helper()
	tbl, err := l.cat.LoadTable(t.Context(), l.ident)
	if err != nil {
		t.Fatal(err)
	}
	want := tbl.CurrentSnapshot().SnapshotID
	waitUntil(t, name+" synced to snapshot "+strconv.FormatInt(want, 10), 60*time.Second, func() bool {
		return e.checkpointOf(name).SnapshotID == want
	})
	return e.checkpointOf(name)
}

// metric sums a series over every replica's /metrics.
func (e *notifyEnv) metric(t *testing.T, series string) float64 {
	t.Helper()
	var sum float64
	for _, addr := range e.addrs {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
				f, _ := strconv.ParseFloat(v, 64)
				sum += f
			}
		}
		resp.Body.Close()
	}
	return sum
}

// queueEmpty reports whether no message is left on the queue, visible or
// in flight.
func (e *notifyEnv) queueEmpty(t *testing.T) bool {
	out, err := e.sqs.GetQueueAttributes(t.Context(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(e.queueURL),
		AttributeNames: []sqstypes.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["ApproximateNumberOfMessages"] == "0" && out.Attributes["ApproximateNumberOfMessagesNotVisible"] == "0"
}

// TestServe_SyncOnNotification: S3-, Glue- and S3 Tables-shaped events on an SQS
// queue (moto) sync exactly the table they name, through two replicas that
// handle each message once (notify N1, N2); malformed and unrelated
// messages are counted and deleted; a burst of 50 commits in 5 seconds,
// each announced, gives at most 3 runs and exactly the rows committed (N3).
func TestServe_SyncOnNotification(t *testing.T) {
	e := newNotifyEnv(t)
	ctx := t.Context()

	// S3 Object Created for the new metadata file of demo.events.
	if _, err := e.events.appendRows(ctx, 20); err != nil {
		t.Fatal(err)
	}
	e.send(t, s3Created(e.metadata(t, e.events)))
	cp := e.waitSynced(t, "events", e.events)
	waitUntil(t, "the notify run's record", 10*time.Second, func() bool { return len(notifyRuns(e.runs("events"))) > 0 })
	if cp.Rows != 30 {
		t.Fatalf("events after the S3 event: %d rows, want 30", cp.Rows)
	}
	if n := len(notifyRuns(e.runs("events"))); n != 1 {
		for _, r := range e.runs("events") {
			t.Logf("run %s trigger %s status %s snapshot %d rows %d", r.ID, r.Trigger, r.Status, r.SnapshotID, r.Rows)
		}
		t.Fatalf("events has %d notify runs, want 1", n)
	}

	// The replica that took the message shows it as the table's last event.
	seen := 0
	for i := range e.addrs {
		var v struct {
			LastEvent *struct {
				Via   string `json:"via"`
				Event struct{ Kind, MetadataLocation string }
			} `json:"lastEvent"`
		}
		e.must(i, "GET", "/api/v1/tables/events", nil, http.StatusOK, &v)
		if v.LastEvent != nil && v.LastEvent.Via == "lake-events" && v.LastEvent.Event.Kind == "s3" &&
			v.LastEvent.Event.MetadataLocation == e.events.metadata {
			seen++
		}
	}
	if seen != 1 {
		t.Fatalf("%d replicas show the S3 event as events' last event, want 1", seen)
	}

	// The webhook, as a CI job would call it after a commit.
	if _, err := e.events.appendRows(ctx, 7); err != nil {
		t.Fatal(err)
	}
	var ans struct{ Status string }
	e.must(1, "POST", "/api/v1/tables/events/notify", map[string]string{"metadataLocation": e.events.metadata},
		http.StatusAccepted, &ans)
	if ans.Status != "accepted" {
		t.Fatalf("webhook answered %q, want accepted", ans.Status)
	}
	if cp := e.waitSynced(t, "events", e.events); cp.Rows != 37 {
		t.Fatalf("events after the webhook: %d rows, want 37", cp.Rows)
	}
	e.must(1, "POST", "/api/v1/tables/nosuch/notify", nil, http.StatusNotFound, nil)

	// Glue table change (in an SNS envelope) after a commit moved the
	// Glue table's metadata_location.
	if _, err := e.orders.appendRows(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := e.glue.UpdateTable(ctx, &glue.UpdateTableInput{DatabaseName: aws.String("demo"), TableInput: &gluetypes.TableInput{
		Name: aws.String("orders"), TableType: aws.String("EXTERNAL_TABLE"),
		Parameters: map[string]string{"table_type": "ICEBERG", "metadata_location": e.metadata(t, e.orders)}}}); err != nil {
		t.Fatal(err)
	}
	e.send(t, glueChanged("demo", "orders"))
	if cp := e.waitSynced(t, "orders", e.orders); cp.Rows != 15 {
		t.Fatalf("orders after the Glue event: %d rows, want 15", cp.Rows)
	}

	// An S3 Tables UpdateTableMetadataLocation call (CloudTrail through
	// EventBridge) naming the metadata file demo.events' commit wrote: the
	// bucket is none of floe's S3 Tables connections, so the table is
	// found by the location the file lies under.
	if _, err := e.events.appendRows(ctx, 3); err != nil {
		t.Fatal(err)
	}
	e.send(t, s3TablesUpdated("arn:aws:s3tables:us-east-1:"+testpeer.MotoAccount+":bucket/elsewhere", "demo", "events", e.events.metadata))
	if cp := e.waitSynced(t, "events", e.events); cp.Rows != 40 {
		t.Fatalf("events after the S3 Tables event: %d rows, want 40", cp.Rows)
	}

	// Malformed, unrelated and unmatched messages: counted, deleted, no run.
	e.send(t, "not json")
	e.send(t, `{"version":"0","id":"x","detail-type":"EC2 Instance State-change Notification","source":"aws.ec2","detail":{}}`)
	e.send(t, glueChanged("demo", "nosuchtable"))
	e.send(t, s3Created("s3://lake/wh/demo.db/nosuch/metadata/00001-a.metadata.json"))
	waitUntil(t, "the queue to drain", 30*time.Second, func() bool { return e.queueEmpty(t) })
	waitUntil(t, "ignored messages counted", 10*time.Second, func() bool {
		return e.metric(t, `floe_notify_ignored_total{reason="malformed"}`) == 1 &&
			e.metric(t, `floe_notify_ignored_total{reason="unrelated"}`) == 1 &&
			e.metric(t, `floe_notify_ignored_total{reason="unmatched"}`) == 3 // two messages, one webhook call
	})
	if n := len(notifyRuns(e.runs("other"))); n != 0 {
		t.Fatalf("other ran %d times on notifications naming other tables", n)
	}

	// Each message handled once across the two replicas: every message
	// read counts one event received (the two malformed/unrelated ones
	// count as kind "unknown").
	if got := e.metric(t, `floe_notify_events_total{kind="s3",outcome="received"}`) +
		e.metric(t, `floe_notify_events_total{kind="glue",outcome="received"}`) +
		e.metric(t, `floe_notify_events_total{kind="s3tables",outcome="received"}`) +
		e.metric(t, `floe_notify_events_total{kind="unknown",outcome="received"}`); got != float64(e.sent) {
		t.Fatalf("the replicas received %v events, %d were sent: a message was handled twice or lost", got, e.sent)
	}

	// Burst: 50 commits, their announcements arriving within a few
	// seconds. The commits are made first, so that how fast the lake under
	// test commits (slow on a loaded machine) does not spread the
	// announcements out; they are then sent ten to a batch.
	before := len(notifyRuns(e.runs("events")))
	var bodies []string
	for range 50 {
		if _, err := e.events.appendRows(ctx, 2); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, s3Created(e.events.metadata))
	}
	start := time.Now()
	e.sendBatches(t, bodies)
	t.Logf("50 announcements sent in %s", time.Since(start).Round(time.Millisecond))
	cp = e.waitSynced(t, "events", e.events)
	if cp.Rows != 140 {
		t.Fatalf("events after the burst: %d rows, want 140", cp.Rows)
	}
	waitUntil(t, "the queue to drain", 30*time.Second, func() bool { return e.queueEmpty(t) })
	runs := len(notifyRuns(e.runs("events"))) - before
	t.Logf("the burst of 50 announced commits gave %d runs", runs)
	if runs < 1 || runs > 3 {
		t.Fatalf("the burst gave %d runs, want 1-3", runs)
	}
}
