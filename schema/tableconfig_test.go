package schema_test

import (
	"encoding/json"
	"testing"

	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/schema"
)

func TestTableConfig(t *testing.T) {
	res, err := schema.Infer(everyType(t), schema.Options{Name: "sales_orders"})
	if err != nil {
		t.Fatal(err)
	}
	src, _ := schema.ParseTableName("`My-Catalog`.sales.orders")
	tc := schema.TableConfig(res, schema.TableOptions{Source: src, Connection: "prod", Task: map[string]string{"continueOnFileError": "true"}})
	b, err := json.Marshal(tc)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		TableName      string `json:"tableName"`
		TableType      string `json:"tableType"`
		SegmentsConfig struct {
			TimeColumnName string `json:"timeColumnName"`
			Replication    string `json:"replication"`
		} `json:"segmentsConfig"`
		TableIndexConfig struct {
			NullHandlingEnabled bool     `json:"nullHandlingEnabled"`
			RangeIndexColumns   []string `json:"rangeIndexColumns"`
			NoDictionaryColumns []string `json:"noDictionaryColumns"`
		} `json:"tableIndexConfig"`
		Metadata map[string]any `json:"metadata"`
		Tenants  map[string]any `json:"tenants"`
		Task     struct {
			TaskTypeConfigsMap map[string]map[string]string `json:"taskTypeConfigsMap"`
		} `json:"task"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.TableName != "sales_orders" || got.TableType != "OFFLINE" || got.SegmentsConfig.TimeColumnName != "tstz" ||
		got.SegmentsConfig.Replication != "1" || got.Metadata == nil || got.Tenants == nil {
		t.Errorf("config = %s", b)
	}
	if !got.TableIndexConfig.NullHandlingEnabled || len(got.TableIndexConfig.RangeIndexColumns) != 1 ||
		got.TableIndexConfig.RangeIndexColumns[0] != "tstz" || got.TableIndexConfig.NoDictionaryColumns == nil {
		t.Errorf("tableIndexConfig = %s", b)
	}
	task := got.Task.TaskTypeConfigsMap["ExternalTableSyncTask"]
	want := map[string]string{"schedule": "0 */5 * * * ?", "enabled": "true", "sourceTable": "`My-Catalog`.sales.orders",
		"connection": "prod", "continueOnFileError": "true"}
	if len(task) != len(want) {
		t.Errorf("task = %v, want %v", task, want)
	}
	for k, v := range want {
		if task[k] != v {
			t.Errorf("task[%s] = %q, want %q", k, task[k], v)
		}
	}
}

func TestTableConfig_options(t *testing.T) {
	res, err := schema.Infer(everyType(t), schema.Options{Name: "t", NoTimeColumn: true})
	if err != nil {
		t.Fatal(err)
	}
	tc := schema.TableConfig(res, schema.TableOptions{Schedule: "*/10 * * * *", Disabled: true, Replication: 3})
	task := tc.Task.TaskTypeConfigsMap[spec.SyncTaskType]
	if task["schedule"] != "*/10 * * * *" || task["enabled"] != "false" || tc.SegmentsConfig.Replication != "3" {
		t.Errorf("task %v replication %q", task, tc.SegmentsConfig.Replication)
	}
	if tc.SegmentsConfig.TimeColumnName != "" || len(tc.TableIndexConfig.RangeIndexColumns) != 0 {
		t.Errorf("no time column: segmentsConfig %+v range %v", tc.SegmentsConfig, tc.TableIndexConfig.RangeIndexColumns)
	}
	if _, ok := task["sourceTable"]; ok {
		t.Error("sourceTable written without a source")
	}
}
