package catalog

import (
	"fmt"
	"strconv"
)

// Page sizes.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
)

// PageRequest asks for one page. Token is the NextToken of the previous
// page ("" for the first); Size 0 means DefaultPageSize.
type PageRequest struct {
	Token string `json:"token,omitempty"`
	Size  int    `json:"size,omitempty"`
}

func (p PageRequest) size() int {
	switch {
	case p.Size <= 0:
		return DefaultPageSize
	case p.Size > MaxPageSize:
		return MaxPageSize
	}
	return p.Size
}

// Page is one page of results; NextToken is "" on the last page.
type Page[T any] struct {
	Items     []T    `json:"items"`
	NextToken string `json:"nextToken,omitempty"`
}

// pageOf slices a complete, stably ordered list; the token is an offset.
func pageOf[T any](all []T, req PageRequest) (Page[T], error) {
	start := 0
	if req.Token != "" {
		n, err := strconv.Atoi(req.Token)
		if err != nil || n < 0 || n > len(all) {
			return Page[T]{}, fmt.Errorf("%w: invalid page token %q", ErrInvalidConfig, req.Token)
		}
		start = n
	}
	end := min(start+req.size(), len(all))
	p := Page[T]{Items: append([]T{}, all[start:end]...)}
	if end < len(all) {
		p.NextToken = strconv.Itoa(end)
	}
	return p, nil
}
