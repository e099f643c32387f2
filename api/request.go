package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// decodeBody reads one JSON object into v, refusing unknown fields,
// trailing data and bodies over the size limit; every problem is an
// errBadRequest, a body too large or too slow its own status.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if cause := bodyErr(err); cause != nil {
			return fmt.Errorf("decode request body: %w (larger than %d bytes or slower than %s; server.maxBodyBytes, server.readTimeout)",
				cause, s.opts.MaxBodyBytes, s.opts.ReadTimeout)
		}
		return fmt.Errorf("%w: decode request body: %w", errBadRequest, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if cause := bodyErr(err); cause != nil {
			return fmt.Errorf("decode request body: %w", cause)
		}
		return fmt.Errorf("%w: decode request body: data after the JSON object", errBadRequest)
	}
	return nil
}
