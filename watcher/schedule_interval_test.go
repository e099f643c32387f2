package watcher_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/watcher"
)

func TestParseSchedule_RefusesNonPositiveEvery(t *testing.T) {
	for _, spec := range []string{"@every -5s", "@every 0s", "@every 0", "@every soon"} {
		_, err := watcher.ParseSchedule(spec)
		if !errors.Is(err, watcher.ErrBadSchedule) || !strings.Contains(err.Error(), spec) {
			t.Errorf("ParseSchedule(%q) = %v, want ErrBadSchedule naming it", spec, err)
		}
	}
}

func TestMinInterval(t *testing.T) {
	cases := []struct {
		spec string
		want time.Duration
	}{
		{"@every 1ms", time.Second}, // the cron library never fires faster than once a second
		{"@every 30s", 30 * time.Second},
		{"* * * * * ?", time.Second},
		{"*/5 * * * * ?", 5 * time.Second},
		{"0,59 * * * * ?", time.Second}, // :59 then :00 of the next minute
		{"0 */5 * * * ?", 5 * time.Minute},
		{"*/5 * * * *", 5 * time.Minute},
		{"@hourly", time.Hour},
	}
	for _, tc := range cases {
		s, err := watcher.ParseSchedule(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := watcher.MinInterval(s); got != tc.want {
			t.Errorf("MinInterval(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
}

func TestCheckScheduleInterval(t *testing.T) {
	ok := []map[string]string{
		{"schedule": "0 */5 * * * ?"},
		{"schedule.paused": "@every 10s"},
		{"enabled": "false"},
	}
	for _, tc := range ok {
		if err := watcher.CheckScheduleInterval(tc, watcher.DefaultMinScheduleInterval); err != nil {
			t.Errorf("%v: %v", tc, err)
		}
	}
	bad := []struct {
		tc    map[string]string
		names []string
	}{
		{map[string]string{"schedule": "@every 1ms"}, []string{"taskConfig.schedule", "@every 1ms", "10s", "watcher.minScheduleInterval"}},
		{map[string]string{"schedule": "* * * * * ?"}, []string{"taskConfig.schedule", "1s apart"}},
		{map[string]string{"schedule.paused": "*/2 * * * * ?"}, []string{"taskConfig.schedule.paused", "2s apart"}},
		{map[string]string{"schedule": "@every -5s"}, []string{"taskConfig.schedule", "positive"}},
	}
	for _, tc := range bad {
		err := watcher.CheckScheduleInterval(tc.tc, watcher.DefaultMinScheduleInterval)
		if !errors.Is(err, watcher.ErrBadSchedule) {
			t.Errorf("%v: %v, want ErrBadSchedule", tc.tc, err)
			continue
		}
		for _, n := range tc.names {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("%v: %q does not name %q", tc.tc, err, n)
			}
		}
	}
	if err := watcher.CheckScheduleInterval(map[string]string{"schedule": "* * * * * ?"}, time.Second); err != nil {
		t.Errorf("a 1s minimum admits every second: %v", err)
	}
}
