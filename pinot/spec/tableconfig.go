package spec

// TableConfig is the subset of a Pinot OFFLINE table config that floe
// generates and reads. Its JSON form is what the controller's POST /tables
// accepts (Pinot 1.2+ requires "metadata", so it is always written).
type TableConfig struct {
	TableName        string            `json:"tableName"`
	TableType        string            `json:"tableType"`
	SegmentsConfig   SegmentsConfig    `json:"segmentsConfig"`
	Tenants          map[string]string `json:"tenants"`
	TableIndexConfig TableIndexConfig  `json:"tableIndexConfig"`
	Metadata         map[string]any    `json:"metadata"`
	IngestionConfig  *IngestionConfig  `json:"ingestionConfig,omitempty"`
	Task             *TaskConfig       `json:"task,omitempty"`
	FieldConfigList  []FieldConfig     `json:"fieldConfigList,omitempty"`
}

// SegmentsConfig is the segmentsConfig block of a table config.
type SegmentsConfig struct {
	TimeColumnName     string `json:"timeColumnName,omitempty"`
	Replication        string `json:"replication,omitempty"`
	RetentionTimeUnit  string `json:"retentionTimeUnit,omitempty"`
	RetentionTimeValue string `json:"retentionTimeValue,omitempty"`
}

// TableIndexConfig is the tableIndexConfig block of a table config.
type TableIndexConfig struct {
	LoadMode                   string   `json:"loadMode,omitempty"`
	InvertedIndexColumns       []string `json:"invertedIndexColumns"`
	RangeIndexColumns          []string `json:"rangeIndexColumns"`
	NoDictionaryColumns        []string `json:"noDictionaryColumns"`
	SortedColumn               []string `json:"sortedColumn"`
	VarLengthDictionaryColumns []string `json:"varLengthDictionaryColumns,omitempty"`
	NullHandlingEnabled        bool     `json:"nullHandlingEnabled"`
}

// IngestionConfig is the ingestionConfig block of a table config.
type IngestionConfig struct {
	BatchIngestionConfig *BatchIngestionConfig `json:"batchIngestionConfig,omitempty"`
}

// BatchIngestionConfig says how segments of an OFFLINE table are pushed.
type BatchIngestionConfig struct {
	SegmentIngestionType      string `json:"segmentIngestionType,omitempty"`
	SegmentIngestionFrequency string `json:"segmentIngestionFrequency,omitempty"`
}

// TaskConfig is the task block; floe keeps its sync task config under
// TaskTypeConfigsMap[SyncTaskType].
type TaskConfig struct {
	TaskTypeConfigsMap map[string]map[string]string `json:"taskTypeConfigsMap"`
}

// SyncTaskType is the task type under which floe's sync task config lives.
const SyncTaskType = "ExternalTableSyncTask"

// FieldConfig is one entry of fieldConfigList.
type FieldConfig struct {
	Name             string   `json:"name"`
	EncodingType     string   `json:"encodingType,omitempty"`
	CompressionCodec string   `json:"compressionCodec,omitempty"`
	IndexTypes       []string `json:"indexTypes,omitempty"`
}

// OfflineTableName returns the table name with its type suffix.
func OfflineTableName(raw string) string { return raw + "_OFFLINE" }
