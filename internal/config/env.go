package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// APITokenEnv is the variable from which floe's commands that call a
// running floe's API (aws-policy -server, ...) take their bearer token; it
// configures nothing, so applyEnv lets it pass.
const APITokenEnv = "FLOE_API_TOKEN"

// AddrEnv and TokenEnv are the address and bearer token of the running
// floe the command-line client (floe tables, status, trigger, ...) talks
// to; like APITokenEnv they configure nothing, so applyEnv lets them pass.
const (
	AddrEnv  = "FLOE_ADDR"
	TokenEnv = "FLOE_TOKEN"
)

// logLevelEnv is the one override outside the FLOE_ prefix: the common
// LOG_LEVEL, read like FLOE_LOG_LEVEL.
const logLevelEnv = "LOG_LEVEL"

// EnvVar is one environment override: the variable and the field it sets.
type EnvVar struct {
	// Name is FLOE_ and the field's path upper-cased with dots turned
	// into underscores (FLOE_PINOT_DEEPSTORE_URI for pinot.deepStore.uri).
	Name string
	// Field is the field's path in the YAML file (pinot.deepStore.uri).
	Field string
	// Type is the field's kind as the variable spells it: string, bool,
	// int, duration or list (comma-separated, empty items dropped).
	Type  string
	index []int
}

// EnvVars lists every override, in the order of Config's fields. Each is
// derived from the field's yaml tag; every field that holds a string, a
// bool, an integer, a duration or a list of strings has one. Maps and
// lists of sections (connections, pinot.headers, notifications.queues)
// are set in the file only.
func EnvVars() []EnvVar {
	vars := envFields(reflect.TypeFor[Config](), "", nil)
	for _, v := range vars {
		if v.Field == "log.level" {
			alias := v
			alias.Name = logLevelEnv
			vars = append(vars, alias)
		}
	}
	return vars
}

// envFields walks the fields of struct type t under the YAML path prefix
// (index is t's place in Config) and returns their overrides.
func envFields(t reflect.Type, prefix string, index []int) []EnvVar {
	var out []EnvVar
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		path := tag
		if prefix != "" {
			path = prefix + "." + tag
		}
		at := append(append([]int(nil), index...), i)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, envFields(f.Type, path, at)...)
			continue
		}
		if typ := envType(f.Type); typ != "" {
			name := "FLOE_" + strings.ToUpper(strings.ReplaceAll(path, ".", "_"))
			out = append(out, EnvVar{Name: name, Field: path, Type: typ, index: at})
		}
	}
	return out
}

// envType names how a variable spells a field of type t ("" when no
// variable can: maps, pointers, lists of sections).
func envType(t reflect.Type) string {
	if t == reflect.TypeFor[time.Duration]() {
		return "duration"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int64:
		return "int"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "list"
		}
	}
	return ""
}

// set parses val and stores it in v's field of c.
func (v EnvVar) set(c *Config, val string) error {
	dst := reflect.ValueOf(c).Elem().FieldByIndex(v.index)
	switch v.Type {
	case "duration":
		d, err := time.ParseDuration(val)
		if err != nil {
			return err
		}
		dst.SetInt(int64(d))
	case "int":
		n, err := parseInt(val, dst.Kind())
		if err != nil {
			return err
		}
		dst.SetInt(n)
	case "bool":
		b, err := parseBool(val)
		if err != nil {
			return err
		}
		dst.SetBool(b)
	case "list":
		dst.Set(reflect.ValueOf(parseList(val)))
	default:
		dst.SetString(val)
	}
	return nil
}

// parseInt reads an override of an int or int64 field.
func parseInt(v string, k reflect.Kind) (int64, error) {
	if k == reflect.Int {
		n, err := strconv.Atoi(v)
		return int64(n), err
	}
	return strconv.ParseInt(v, 10, 64)
}

// parseBool reads an override of a bool field.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no", "":
		return false, nil
	}
	return false, fmt.Errorf("want true or false, got %q", v)
}

// parseList reads a comma-separated list (empty items dropped).
func parseList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// applyEnv applies the FLOE_* overrides found in env (KEY=VALUE pairs).
// An unknown FLOE_ variable is an error: a typo must not pass silently.
func applyEnv(c *Config, env []string) error {
	known := map[string]EnvVar{}
	for _, v := range EnvVars() {
		known[v.Name] = v
	}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		v, isKnown := known[name]
		if !isKnown {
			if strings.HasPrefix(name, "FLOE_") && !clientEnv(name) {
				return fmt.Errorf("%w: %w", ErrInvalid, &FieldError{name, "unknown environment variable"})
			}
			continue
		}
		if err := v.set(c, val); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, &FieldError{v.Field + " (from " + name + ")", err.Error()})
		}
	}
	return nil
}

// clientEnv reports whether name is a FLOE_ variable that configures no
// setting: the config file's path and the command-line client's.
func clientEnv(name string) bool {
	return name == "FLOE_CONFIG" || name == APITokenEnv || name == AddrEnv || name == TokenEnv
}
