package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxBodyBytes bounds a request body.
const maxBodyBytes = 1 << 20

// decodeBody reads one JSON object into v, refusing unknown fields and
// trailing data; every problem is an errBadRequest.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: decode request body: %w", errBadRequest, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: decode request body: data after the JSON object", errBadRequest)
	}
	return nil
}

// redactedValue replaces a secret value in any text the API sends.
const redactedValue = "REDACTED"

// scrub replaces every secret value found in msg. Catalog errors are
// built not to hold secrets; this is the API's own guard on top (I7).
func scrub(msg string, secrets map[string]string) string {
	for _, v := range secrets {
		if v != "" {
			msg = strings.ReplaceAll(msg, v, redactedValue)
		}
	}
	return msg
}

// writeScrubbed is writeErr with the connection's secrets scrubbed from
// the message.
func writeScrubbed(w http.ResponseWriter, err error, secrets map[string]string) {
	writeJSON(w, errStatus(err), apiError{Error: scrub(err.Error(), secrets)})
}
