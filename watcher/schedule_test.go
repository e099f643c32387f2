package watcher_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/watcher"
)

func TestParseSchedule(t *testing.T) {
	base := time.Date(2026, 12, 2, 10, 3, 20, 0, time.UTC) // a Wednesday
	cases := []struct {
		spec string
		want time.Time
	}{
		{"*/5 * * * *", time.Date(2026, 12, 2, 10, 5, 0, 0, time.UTC)},
		{"0 */5 * * * ?", time.Date(2026, 12, 2, 10, 5, 0, 0, time.UTC)},
		{"30 * * * * ? *", time.Date(2026, 12, 2, 10, 3, 30, 0, time.UTC)},
		{"@every 30s", base.Add(30 * time.Second)},
		{"0 0 12 ? * 1", time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)},   // Quartz 1 = Sunday
		{"0 0 12 ? * 2-3", time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)}, // Mon-Tue
		{"0 12 * * 0", time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)},     // cron 0 = Sunday
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := watcher.ParseSchedule(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Next(base); !got.Equal(tc.want) {
				t.Fatalf("Next = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseSchedule_Errors(t *testing.T) {
	for _, spec := range []string{"", "* * *", "61 * * * *", "0 0 12 ? * 9", "0 0 0 * * ? 2030", "@sometimes"} {
		t.Run(spec, func(t *testing.T) {
			_, err := watcher.ParseSchedule(spec)
			if !errors.Is(err, watcher.ErrBadSchedule) {
				t.Fatalf("want ErrBadSchedule, got %v", err)
			}
		})
	}
}

// A Quartz error names the fields as written, never the cron form floe
// turned them into (Quartz numbers days of the week from 1).
func TestParseSchedule_QuartzErrorsQuoteTheInput(t *testing.T) {
	for spec, want := range map[string]string{
		"0 0 0 ? * 6#3":    `day of week "6#3"`,
		"0 0 0 L * ?":      `day of month "L"`,
		"0 0 0 15W * ?":    `day of month "15W"`,
		"0 0 0 ? * 2,6L":   `day of week "2,6L"`,
		"0 0 0 ? * 6-x":    `day of week "6-x"`,
		"0 0 0 ? * 3/x":    `day of week "3/x"`,
		"0 0 0 ? * MON-9":  `day of week 9 out of range`,
		"0 0 0 ? * 9":      `day of week 9 out of range`,
		"0 0 0 ? * MON#2":  `day of week "MON#2"`,
		"0 0 0 ? * 6#3 *":  `day of week "6#3"`,
		"0 0 25 ? * 2":     `0 0 25 ? * 2`,
		"0 0 0 ? * 2,6-#3": `day of week "2,6-#3"`,
	} {
		_, err := watcher.ParseSchedule(spec)
		if !errors.Is(err, watcher.ErrBadSchedule) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSchedule(%q) = %v, want an error naming %s", spec, err, want)
		}
		if err != nil && strings.Contains(spec, "6#3") && strings.Contains(err.Error(), "5#") {
			t.Errorf("ParseSchedule(%q) = %v: quotes the rewritten field", spec, err)
		}
	}
}

func TestPauseResume(t *testing.T) {
	tc := map[string]string{"schedule": "0 */5 * * * ?", "enabled": "true"}
	p := watcher.Pause(tc)
	if !watcher.Paused(p) || p["schedule.paused"] != "0 */5 * * * ?" || tc["schedule"] == "" {
		t.Fatalf("pause: %v (input must not change: %v)", p, tc)
	}
	if pp := watcher.Pause(p); pp["schedule.paused"] != "0 */5 * * * ?" {
		t.Fatalf("pausing twice lost the schedule: %v", pp)
	}
	r := watcher.Resume(p)
	if watcher.Paused(r) || r["schedule"] != "0 */5 * * * ?" || r["schedule.paused"] != "" {
		t.Fatalf("resume: %v", r)
	}
}

func TestValidateTaskConfig(t *testing.T) {
	if err := watcher.ValidateTaskConfig(map[string]string{"schedule": "0 */5 * * * ?", "enabled": "false"}); err != nil {
		t.Fatal(err)
	}
	for key, v := range map[string]string{"schedule": "every day", "enabled": "maybe", "maxRowsPerSegment": "-1"} {
		err := watcher.ValidateTaskConfig(map[string]string{key: v})
		if err == nil || !strings.Contains(err.Error(), "taskConfig."+key) {
			t.Fatalf("%s=%s: error %v does not name the key", key, v, err)
		}
	}
}
