package checkpoint

import "time"

// MaxRunLogLines bounds Run.Log: a run keeps at most this many of its own log lines.
const MaxRunLogLines = 100

// RunLogLine is one log line a run wrote (INFO and above), kept on the run record so an operator can read why a run
// failed without the process logs. Attribute values are strings, scrubbed of credentials before they are stored.
type RunLogLine struct {
	At    time.Time         `json:"at"`
	Level string            `json:"level"` // INFO, WARN, ERROR
	Msg   string            `json:"msg"`
	Attrs map[string]string `json:"attrs,omitempty"`
}
