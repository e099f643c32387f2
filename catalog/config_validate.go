package catalog

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// FieldError is one config problem, naming the field as
// connections.<name>.props.<key> (or .secrets.<key>, .type, .name).
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Unwrap makes every FieldError an ErrInvalidConfig.
func (e *FieldError) Unwrap() error { return ErrInvalidConfig }

var roleARNPattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]{1,512}$`)

// Validate checks the config without any I/O. Each problem is a
// *FieldError (errors.Is(err, ErrInvalidConfig)); several are joined.
func (c Config) Validate() error {
	v := &validator{c: c}
	if strings.TrimSpace(c.Name) == "" {
		v.add("", "name", "must not be empty")
	}
	def, known := lookupType(c.Type)
	switch {
	case known:
		def.validate(v)
	case c.Type == "":
		v.add("", "type", "must not be empty (one of "+typeList(", ")+")")
	default:
		v.add("", "type", fmt.Sprintf("unknown catalog type %q (want %s)", c.Type, typeList(" or ")))
	}
	v.common()
	v.checkCredentials()
	v.aws("")
	v.aws(PropDataPrefix)
	return errors.Join(v.errs...)
}

type validator struct {
	c    Config
	errs []error
}

func (v *validator) add(section, key, msg string) {
	v.errs = append(v.errs, &FieldError{Field: v.c.field(section, key), Msg: msg})
}

func (v *validator) require(key string) bool {
	if v.c.prop(key) == "" {
		v.add("props", key, "is required for a "+v.c.Type+" connection")
		return false
	}
	return true
}

func (v *validator) common() {
	if t := v.c.prop(PropTimeout); t != "" {
		if d, err := time.ParseDuration(t); err != nil || d <= 0 {
			v.add("props", PropTimeout, fmt.Sprintf("invalid duration %q (e.g. 30s)", t))
		}
	}
	for _, key := range []string{PropEndpoint, PropEndpoint + ".s3", PropEndpoint + ".s3tables", PropEndpoint + ".glue", PropEndpoint + ".sts"} {
		if e := v.c.prop(key); e != "" {
			v.url("props", key, e)
		}
	}
}

func (v *validator) url(section, key, raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.add(section, key, fmt.Sprintf("invalid URL %q (want http(s)://host[:port][/path])", raw))
	}
}

func (v *validator) rest() {
	if v.require(PropURI) {
		v.url("props", PropURI, v.c.prop(PropURI))
	}
	if cred := v.c.secret(SecretCredential); cred != "" && !strings.Contains(cred, ":") {
		v.add("secrets", SecretCredential, "must be <client-id>:<client-secret>")
	}
	if s := v.c.prop(PropSigV4); s != "" {
		if _, err := strconv.ParseBool(s); err != nil {
			v.add("props", PropSigV4, fmt.Sprintf("invalid boolean %q", s))
		}
	}
	if o := v.c.prop(PropOAuthURI); o != "" {
		v.url("props", PropOAuthURI, o)
	}
}

func (v *validator) s3tables() {
	v.modeIn(ModeAuto, ModeREST, ModeNative)
	if !v.require(PropARN) {
		return
	}
	arn, err := ParseTableBucketARN(v.c.prop(PropARN))
	if err != nil {
		v.add("props", PropARN, err.Error())
		return
	}
	if r := v.c.prop(PropRegion); r != "" && r != arn.Region {
		v.add("props", PropRegion, fmt.Sprintf("%v: %q differs from the ARN's region %q", ErrWrongRegion, r, arn.Region))
	}
}

func (v *validator) glue() {
	v.modeIn(ModeNative, ModeREST)
	if v.require(PropRegion) && !regionPattern.MatchString(v.c.prop(PropRegion)) {
		v.add("props", PropRegion, fmt.Sprintf("invalid region %q", v.c.prop(PropRegion)))
	}
	if id := v.c.prop(PropCatalogID); id != "" && !accountPattern.MatchString(strings.SplitN(id, ":", 2)[0]) {
		v.add("props", PropCatalogID, fmt.Sprintf("invalid catalog id %q (want a 12-digit account id)", id))
	}
}

func (v *validator) sql() {
	if d := v.c.prop(PropDialect); d != "" && sqlDialect(d) == "" {
		v.add("props", PropDialect, fmt.Sprintf("unsupported dialect %q (want sqlite or postgres)", d))
		return
	}
	if !v.checkSQLDriver() {
		return // the options are judged for a driver floe runs
	}
	if v.require(PropURI) {
		v.checkSQLOptions()
	}
}

func (v *validator) modeIn(modes ...string) {
	m := v.c.mode(modes[0])
	for _, ok := range modes {
		if m == ok {
			return
		}
	}
	v.add("props", PropMode, fmt.Sprintf("unknown mode %q (want one of %s)", m, strings.Join(modes, ", ")))
}

// aws checks the credential keys of one side (prefix "" or "data.").
func (v *validator) aws(prefix string) {
	id, secret := v.c.secret(prefix+SecretAccessKeyID), v.c.secret(prefix+SecretSecretAccessKey)
	if (id == "") != (secret == "") {
		v.add("secrets", prefix+SecretAccessKeyID, "access-key-id and secret-access-key must be given together")
	}
	if v.c.secret(prefix+SecretSessionToken) != "" && id == "" {
		v.add("secrets", prefix+SecretSessionToken, "a session token needs access-key-id and secret-access-key")
	}
	for _, key := range []string{prefix + PropRoleARN, prefix + PropViaRoleARN} {
		if r := v.c.prop(key); r != "" && !roleARNPattern.MatchString(r) {
			v.add("props", key, fmt.Sprintf("invalid IAM role ARN %q (want arn:aws:iam::<account>:role/<name>)", r))
		}
	}
	if v.c.prop(prefix+PropExternalID) != "" && v.c.prop(prefix+PropRoleARN) == "" {
		v.add("props", prefix+PropExternalID, "needs "+prefix+PropRoleARN)
	}
	if v.c.prop(prefix+PropViaRoleARN) != "" && v.c.prop(prefix+PropRoleARN) == "" {
		v.add("props", prefix+PropViaRoleARN, "needs "+prefix+PropRoleARN+" (the role it assumes)")
	}
	if prefix != "" {
		if r := v.c.prop(prefix + PropRegion); r != "" && !regionPattern.MatchString(r) {
			v.add("props", prefix+PropRegion, fmt.Sprintf("invalid region %q", r))
		}
	}
}
