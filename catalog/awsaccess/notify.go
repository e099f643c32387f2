package awsaccess

import (
	"fmt"
	"regexp"
	"strings"
)

// Notifications asks for the access floe needs to read commit
// announcements from an SQS queue (package notify), and, unless the
// queue exists already, for the template to create it with the
// EventBridge rules that fill it.
type Notifications struct {
	// QueueARN is an existing queue floe reads; the template then creates
	// neither queue nor rules.
	QueueARN string `json:"queueArn,omitempty"`
	// QueueName names the queue the template creates (default
	// floe-<connection>-notifications).
	QueueName string `json:"queueName,omitempty"`
}

// NotifyQueue is the notification side of a Result.
type NotifyQueue struct {
	ARN  string `json:"arn"`
	Name string `json:"name"`
	// Create: the template creates the queue, its dead-letter queue, the
	// rules and the queue policy that lets EventBridge send.
	Create bool         `json:"create"`
	Rules  []NotifyRule `json:"rules,omitempty"`
}

// NotifyRule is one EventBridge rule that sends a kind of commit
// announcement to the queue.
type NotifyRule struct {
	// Name is the rule's logical id in the template.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Pattern is the rule's event pattern.
	Pattern map[string]any `json:"pattern"`
}

// notifyActions are what a consumer of the queue calls (notify.SQSQueue):
// nothing else, on that queue only.
var notifyActions = []string{"sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ReceiveMessage"}

var (
	queueARNPattern  = regexp.MustCompile(`^arn:aws[a-z-]*:sqs:([a-z0-9-]+):(\d{12}):([\w-]{1,80})$`)
	queueNamePattern = regexp.MustCompile(`^[\w-]{1,80}$`)
)

// notifyQueue resolves the queue and its rules (nil without Notifications).
func (r *resolver) notifyQueue() (*NotifyQueue, error) {
	n := r.opts.Notifications
	if n == nil {
		return nil, nil
	}
	if n.QueueARN != "" {
		m := queueARNPattern.FindStringSubmatch(n.QueueARN)
		if m == nil {
			return nil, &InputError{Field: "options.notifications.queueArn", Msg: fmt.Sprintf("%q is not an SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>)", n.QueueARN)}
		}
		return &NotifyQueue{ARN: n.QueueARN, Name: m[3]}, nil
	}
	name := n.QueueName
	if name == "" {
		name = truncate("floe-"+r.conn.Name+"-notifications", 80)
	}
	if !queueNamePattern.MatchString(name) {
		return nil, &InputError{Field: "options.notifications.queueName", Msg: fmt.Sprintf("%q is not an SQS queue name (1-80 of letters, digits, - and _)", name)}
	}
	if err := need(r.conn.Region, "props.region", "the region of the queue is required"); err != nil {
		return nil, err
	}
	if err := need(r.conn.Account, "options.account", "the account of the queue is required (props catalog-id, role-arn or options.account)"); err != nil {
		return nil, err
	}
	q := &NotifyQueue{ARN: "arn:" + r.partition + ":sqs:" + r.conn.Region + ":" + r.conn.Account + ":" + name, Name: name, Create: true}
	q.Rules = r.notifyRules()
	if len(q.Rules) == 0 {
		return nil, &InputError{Field: "options.notifications", Msg: "nothing announces this connection's commits: name the table files' location (options.data) for S3 Object Created events"}
	}
	return q, nil
}

// notifyRules are the rules for the connection's kind: Glue table changes,
// S3 Tables UpdateTableMetadataLocation calls (through CloudTrail), and
// S3 Object Created events of metadata files under each data location.
func (r *resolver) notifyRules() []NotifyRule {
	var out []NotifyRule
	switch r.conn.Access {
	case GlueNative, GlueREST:
		detail := map[string]any{"typeOfChange": []string{"UpdateTable", "CreateTable"}}
		if len(r.opts.Databases) > 0 {
			detail["databaseName"] = r.opts.Databases
		}
		out = append(out, NotifyRule{Name: "GlueTableChangeRule", Description: "Glue table changes (an Iceberg commit moves metadata_location)",
			Pattern: map[string]any{"source": []string{"aws.glue"}, "detail-type": []string{"Glue Data Catalog Table State Change"}, "detail": detail}})
	case S3TablesNative, S3TablesREST:
		out = append(out, NotifyRule{Name: "S3TablesCommitRule", Description: "S3 Tables UpdateTableMetadataLocation calls, through CloudTrail",
			Pattern: map[string]any{"source": []string{"aws.s3tables"}, "detail-type": []string{"AWS API Call via CloudTrail"},
				"detail": map[string]any{"eventSource": []string{"s3tables.amazonaws.com"}, "eventName": []string{"UpdateTableMetadataLocation"},
					"requestParameters": map[string]any{"tableBucketARN": []string{r.conn.TableBucket}}}}})
		return out // table files of S3 Tables live in buckets floe does not name
	}
	for i, l := range r.data {
		key := "*metadata/*.metadata.json"
		if l.prefix != "" {
			key = l.prefix + "/" + key
		}
		out = append(out, NotifyRule{Name: fmt.Sprintf("MetadataObjectCreatedRule%d", i+1),
			Description: "new Iceberg metadata files under s3://" + l.bucket + "/" + l.prefix,
			Pattern: map[string]any{"source": []string{"aws.s3"}, "detail-type": []string{"Object Created"},
				"detail": map[string]any{"bucket": map[string]any{"name": []string{l.bucket}},
					"object": map[string]any{"key": []map[string]string{{"wildcard": key}}}}}})
	}
	return out
}

// notifyStatement grants the consumer's actions on the queue.
func notifyStatement(q *NotifyQueue) Statement {
	return Statement{Sid: "ReadNotificationQueue", Effect: "Allow", Action: notifyActions, Resource: []string{q.ARN}}
}

// notifyNotes say what the user still has to do for the rules to fire.
func notifyNotes(q *NotifyQueue) []string {
	if q == nil {
		return nil
	}
	out := []string{"set notifications.queues[].url (or connections.<name>.notifications.url) in floe's config to the template's QueueUrl output"}
	for _, r := range q.Rules {
		if strings.HasPrefix(r.Name, "MetadataObjectCreatedRule") {
			out = append(out, "S3 sends Object Created events to EventBridge only when the bucket's EventBridge notifications are on (S3 console → bucket → Properties → Event notifications)")
			break
		}
	}
	for _, r := range q.Rules {
		if r.Name == "S3TablesCommitRule" {
			out = append(out, "S3 Tables calls reach EventBridge through CloudTrail: the account needs a trail (management events suffice)")
		}
	}
	return out
}

// notifyResources are the template's queue, dead-letter queue, rules and
// queue policy (when the queue is to be created).
func notifyResources(q *NotifyQueue) omap {
	if q == nil || !q.Create {
		return nil
	}
	getAtt := func(id, attr string) omap { return omap{{"Fn::GetAtt", []string{id, attr}}} }
	res := omap{
		// The queues hold only announcements, which the schedule makes up
		// for: deleting them with the stack loses nothing.
		{"NotificationDeadLetterQueue", omap{{"Type", "AWS::SQS::Queue"}, {"DeletionPolicy", "Delete"}, {"UpdateReplacePolicy", "Delete"}, {"Properties", omap{
			{"QueueName", truncate(q.Name, 76) + "-dlq"}, {"MessageRetentionPeriod", 1209600}, {"SqsManagedSseEnabled", true}}}}},
		{"NotificationQueue", omap{{"Type", "AWS::SQS::Queue"}, {"DeletionPolicy", "Delete"}, {"UpdateReplacePolicy", "Delete"}, {"Properties", omap{
			{"QueueName", q.Name}, {"VisibilityTimeout", 60}, {"MessageRetentionPeriod", 345600}, {"SqsManagedSseEnabled", true},
			{"RedrivePolicy", omap{{"deadLetterTargetArn", getAtt("NotificationDeadLetterQueue", "Arn")}, {"maxReceiveCount", 5}}}}}}},
	}
	var sources []omap
	for _, r := range q.Rules {
		res = append(res, kv{r.Name, omap{{"Type", "AWS::Events::Rule"}, {"Properties", omap{
			{"Description", r.Description}, {"State", "ENABLED"}, {"EventPattern", r.Pattern},
			{"Targets", []omap{{{"Id", "floe-notifications"}, {"Arn", getAtt("NotificationQueue", "Arn")}}}}}}}})
		sources = append(sources, getAtt(r.Name, "Arn"))
	}
	send := omap{{"Sid", "EventBridgeRulesSend"}, {"Effect", "Allow"}, {"Principal", omap{{"Service", "events.amazonaws.com"}}},
		{"Action", "sqs:SendMessage"}, {"Resource", getAtt("NotificationQueue", "Arn")},
		{"Condition", omap{{"ArnEquals", omap{{"aws:SourceArn", sources}}}}}}
	return append(res, kv{"NotificationQueuePolicy", omap{{"Type", "AWS::SQS::QueuePolicy"}, {"Properties", omap{
		{"Queues", []omap{ref("NotificationQueue")}},
		{"PolicyDocument", omap{{"Version", PolicyVersion}, {"Statement", []omap{send}}}}}}}})
}

// notifyOutputs are the created queue's URL and ARN.
func notifyOutputs(q *NotifyQueue) omap {
	if q == nil || !q.Create {
		return nil
	}
	return omap{
		{"QueueUrl", omap{{"Description", "the queue floe reads: notifications.queues[].url in floe's config"}, {"Value", ref("NotificationQueue")}}},
		{"QueueArn", omap{{"Description", "the queue's ARN"}, {"Value", omap{{"Fn::GetAtt", []string{"NotificationQueue", "Arn"}}}}}},
	}
}
