package watcher

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// ErrBadSchedule: a schedule string is neither 5-field cron nor Quartz.
var ErrBadSchedule = errors.New("invalid schedule")

// Schedule says when a table's next scheduled run is due. Next is a pure
// function of its argument, so tests drive it with any clock.
type Schedule interface {
	Next(after time.Time) time.Time
}

// ParseSchedule accepts 5-field cron ("*/5 * * * *"), descriptors
// ("@every 30s", "@hourly") and Pinot's Quartz form with seconds and an
// optional year ("0 */5 * * * ?", "0 0 * * * ? *").
func ParseSchedule(s string) (Schedule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%w: empty", ErrBadSchedule)
	}
	if strings.HasPrefix(s, "@") {
		if err := checkEvery(s); err != nil {
			return nil, err
		}
		return parse(cron.Descriptor, s, s)
	}
	fields := strings.Fields(s)
	switch len(fields) {
	case 5:
		return parse(cron.Minute|cron.Hour|cron.Dom|cron.Month|cron.Dow, strings.Join(fields, " "), s)
	case 6, 7:
		return parseQuartz(fields, s)
	}
	return nil, fmt.Errorf("%w %q: want 5 fields (cron) or 6-7 fields (Quartz), got %d", ErrBadSchedule, s, len(fields))
}

func parse(opts cron.ParseOption, spec, orig string) (Schedule, error) {
	sched, err := cron.NewParser(opts).Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrBadSchedule, orig, err)
	}
	return sched, nil
}

// quartzOnly matches the Quartz day tokens cron has no form for: L (last),
// W (nearest weekday) and # (nth weekday of the month).
var quartzOnly = regexp.MustCompile(`(?i)^(L|LW|\d*L|L-\d+|\d+W|\d+#\d+)$`)

// parseQuartz parses Quartz fields. Its errors quote the fields as given,
// never the cron form they were turned into (which numbers days of the
// week differently).
func parseQuartz(fields []string, orig string) (Schedule, error) {
	for i, name := range map[int]string{3: "day of month", 5: "day of week"} {
		for _, part := range strings.Split(fields[i], ",") {
			if quartzOnly.MatchString(part) {
				return nil, fmt.Errorf("%w %q: %s %q: Quartz's L, W and # forms are not supported", ErrBadSchedule, orig, name, fields[i])
			}
		}
	}
	q, err := fromQuartz(fields)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrBadSchedule, orig, err)
	}
	const opts = cron.Second | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow
	sched, err := parse(opts, q, orig)
	if err == nil {
		return sched, nil
	}
	// The day of week is the one field rewritten: when the rest parses
	// without it, it is the culprit, named as written.
	rest := strings.Fields(q)
	rest[5] = "*"
	if _, restErr := cron.NewParser(opts).Parse(strings.Join(rest, " ")); restErr == nil {
		return nil, fmt.Errorf("%w %q: day of week %q is not valid (want 1-7 or SUN-SAT, with ranges, lists and steps)", ErrBadSchedule, orig, fields[5])
	}
	return nil, err
}

// fromQuartz turns Quartz fields (sec min hour dom month dow [year]) into
// robfig's six-field form. Quartz numbers days of week 1-7 from Sunday,
// cron 0-6; "?" means "no value" and becomes "*". Years other than "*"
// are refused: nothing in floe needs them.
func fromQuartz(f []string) (string, error) {
	if len(f) == 7 && f[6] != "*" {
		return "", fmt.Errorf("year field %q is not supported (use *)", f[6])
	}
	out := append([]string(nil), f[:6]...)
	for i := range out {
		if out[i] == "?" {
			out[i] = "*"
		}
	}
	dow, err := quartzDow(out[5])
	if err != nil {
		return "", err
	}
	out[5] = dow
	return strings.Join(out, " "), nil
}

// quartzDow shifts numeric day-of-week values down by one (1=SUN → 0).
func quartzDow(field string) (string, error) {
	var b strings.Builder
	num := -1
	flush := func() error {
		if num < 0 {
			return nil
		}
		if num < 1 || num > 7 {
			return fmt.Errorf("day of week %d out of range 1-7", num)
		}
		fmt.Fprintf(&b, "%d", num-1)
		num = -1
		return nil
	}
	afterSlash := false
	for _, r := range field {
		switch {
		case r >= '0' && r <= '9' && !afterSlash:
			if num < 0 {
				num = 0
			}
			num = num*10 + int(r-'0')
			continue
		case r == '/':
			afterSlash = true
		case r == ',' || r == '-':
			afterSlash = false
		}
		if err := flush(); err != nil {
			return "", err
		}
		b.WriteRune(r)
	}
	if err := flush(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// checkEvery refuses "@every" with a zero or negative interval (the cron
// library would quietly run it every second).
func checkEvery(s string) error {
	arg, ok := strings.CutPrefix(s, "@every ")
	if !ok {
		return nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(arg))
	if err != nil {
		return fmt.Errorf("%w %q: %w", ErrBadSchedule, s, err)
	}
	if d <= 0 {
		return fmt.Errorf("%w %q: the interval must be positive", ErrBadSchedule, s)
	}
	return nil
}

// MinInterval is the shortest gap between two runs of s, found by walking
// its next 500 fire times from a fixed instant (enough to see every gap of
// a schedule whose shortest gap is under a few minutes; a schedule that
// never fires gives 0).
func MinInterval(s Schedule) time.Duration {
	t := s.Next(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	var least time.Duration
	for range 500 {
		n := s.Next(t)
		if n.IsZero() {
			break
		}
		if gap := n.Sub(t); least == 0 || gap < least {
			least = gap
		}
		t = n
	}
	return least
}
