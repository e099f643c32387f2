package pinot

import (
	"errors"
	"strconv"
	"strings"

	"github.com/floehq/floe/internal/egress"
)

// ErrTableMissing: the table does not exist in Pinot.
var ErrTableMissing = errors.New("pinot table does not exist")

// ErrReplaceAborted: EndReplace found its replacement reverted or gone
// (another StartReplace that overlapped it reverted it). Nothing of it is
// served; start a new one.
var ErrReplaceAborted = errors.New("segment replacement was reverted")

// ErrReplaceEnded: RevertReplace found its replacement already ended; its
// To segments are served and stay so.
var ErrReplaceEnded = errors.New("segment replacement already ended")

// ErrSegmentNameReverted: a segment name is in the To list of a reverted
// replacement. Pinot keeps reverted replacements in its segment lineage for
// hours and hides every segment named in their To lists from queries (its
// retention manager then deletes it), so such a name must not be uploaded
// again until the replacement is forgotten: use a new name.
var ErrSegmentNameReverted = errors.New("segment name belongs to a reverted replacement")

// APIError is a non-2xx answer from a Pinot REST endpoint. Body has every
// configured header value (Authorization, ...) scrubbed out: controllers
// can echo request headers in their error messages. Body is the whole
// answer (up to 1 MiB) for callers to match on; Error shows only an
// excerpt of it (egress E6).
type APIError struct {
	Op     string
	Status int
	Body   string
}

// HTTPStatusCode returns the answer's HTTP status.
func (e *APIError) HTTPStatusCode() int { return e.Status }

func (e *APIError) Error() string {
	return e.Op + ": HTTP " + strconv.Itoa(e.Status) + ": " + egress.Excerpt(e.Body, nil)
}

// redacted replaces a secret in error texts.
const redacted = "[redacted]"

// scrubber removes known secret values (header values and their
// credential part, e.g. the token after "Bearer ") from text.
type scrubber []string

func newScrubber(headers map[string]string) scrubber {
	var s scrubber
	for _, v := range headers {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		s = append(s, v)
		if _, cred, ok := strings.Cut(v, " "); ok && len(strings.TrimSpace(cred)) >= 4 {
			s = append(s, strings.TrimSpace(cred))
		}
	}
	return s
}

func (s scrubber) scrub(text string) string {
	for _, secret := range s {
		text = strings.ReplaceAll(text, secret, redacted)
	}
	return text
}
