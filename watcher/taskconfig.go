package watcher

import (
	"fmt"
	"maps"
	"strconv"
	"time"
)

// Sync task config keys (the table's string map, like Pinot task configs).
const (
	KeySchedule            = "schedule"
	KeySchedulePaused      = "schedule.paused"
	KeyEnabled             = "enabled"
	KeyContinueOnFileError = "continueOnFileError"
	KeyMaxRowsPerSegment   = "maxRowsPerSegment"
)

// DefaultQuartzSchedule is the schedule written into generated configs.
const DefaultQuartzSchedule = "0 */5 * * * ?"

// Paused reports whether the table's schedule is stashed.
func Paused(tc map[string]string) bool {
	_, has := tc[KeySchedule]
	_, stashed := tc[KeySchedulePaused]
	return stashed && !has
}

// Enabled reports the enabled flag (default true).
func Enabled(tc map[string]string) bool {
	v, ok := tc[KeyEnabled]
	if !ok {
		return true
	}
	b, err := strconv.ParseBool(v)
	return err != nil || b
}

// ContinueOnFileError reports whether one bad file may be skipped (default
// false: the run fails and the checkpoint stays).
func ContinueOnFileError(tc map[string]string) bool {
	b, _ := strconv.ParseBool(tc[KeyContinueOnFileError])
	return b
}

// Pause returns a copy of tc with the schedule stashed under
// schedule.paused. Pausing a paused table changes nothing.
func Pause(tc map[string]string) map[string]string {
	out := maps.Clone(tc)
	if out == nil {
		out = map[string]string{}
	}
	if s, ok := out[KeySchedule]; ok {
		out[KeySchedulePaused] = s
		delete(out, KeySchedule)
	}
	return out
}

// Resume returns a copy of tc with the stashed schedule put back.
func Resume(tc map[string]string) map[string]string {
	out := maps.Clone(tc)
	if out == nil {
		out = map[string]string{}
	}
	if s, ok := out[KeySchedulePaused]; ok {
		out[KeySchedule] = s
		delete(out, KeySchedulePaused)
	}
	return out
}

// ValidateTaskConfig checks the keys floe reads, naming the bad one.
func ValidateTaskConfig(tc map[string]string) error {
	for _, k := range []string{KeySchedule, KeySchedulePaused} {
		if v, ok := tc[k]; ok {
			if _, err := ParseSchedule(v); err != nil {
				return fmt.Errorf("taskConfig.%s: %w", k, err)
			}
		}
	}
	for _, k := range []string{KeyEnabled, KeyContinueOnFileError} {
		if v, ok := tc[k]; ok {
			if _, err := strconv.ParseBool(v); err != nil {
				return fmt.Errorf("taskConfig.%s: want true or false, got %q", k, v)
			}
		}
	}
	if v, ok := tc[KeyMaxRowsPerSegment]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err != nil || n <= 0 {
			return fmt.Errorf("taskConfig.%s: want a positive integer, got %q", KeyMaxRowsPerSegment, v)
		}
	}
	return nil
}

// DefaultMinScheduleInterval is the shortest schedule the API accepts
// unless configured otherwise.
const DefaultMinScheduleInterval = 10 * time.Second

// CheckScheduleInterval refuses a schedule (or stashed schedule) that can
// fire more often than min, naming the key.
func CheckScheduleInterval(tc map[string]string, min time.Duration) error {
	for _, k := range []string{KeySchedule, KeySchedulePaused} {
		v, ok := tc[k]
		if !ok {
			continue
		}
		s, err := ParseSchedule(v)
		if err != nil {
			return fmt.Errorf("taskConfig.%s: %w", k, err)
		}
		if gap := MinInterval(s); gap > 0 && gap < min {
			return fmt.Errorf("taskConfig.%s: %w %q: runs %s apart, more often than the minimum %s (watcher.minScheduleInterval)",
				k, ErrBadSchedule, v, gap, min)
		}
	}
	return nil
}
