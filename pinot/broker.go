package pinot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Broker runs SQL through a Pinot broker.
type Broker struct {
	base    string
	client  *http.Client
	headers map[string]string
	scrub   scrubber
	// NullHandling asks for SQL null semantics (enableNullHandling); on by
	// default. Servers older than 1.0 refuse it.
	NullHandling bool
}

// NewBroker returns a broker client for baseURL.
func NewBroker(baseURL string, timeout time.Duration, headers map[string]string, opts ...Option) *Broker {
	s := newScrubber(headers)
	return &Broker{base: strings.TrimRight(baseURL, "/"), client: httpClient(timeout, s, opts), headers: headers,
		scrub: s, NullHandling: true}
}

// ResultTable is a query answer.
type ResultTable struct {
	Columns []string `json:"-"`
	Types   []string `json:"-"`
	Rows    [][]any  `json:"rows"`
}

type brokerResponse struct {
	ResultTable *struct {
		DataSchema struct {
			ColumnNames     []string `json:"columnNames"`
			ColumnDataTypes []string `json:"columnDataTypes"`
		} `json:"dataSchema"`
		Rows [][]any `json:"rows"`
	} `json:"resultTable"`
	Exceptions []struct {
		ErrorCode int    `json:"errorCode"`
		Message   string `json:"message"`
	} `json:"exceptions"`
}

// Query runs sql. The broker answers HTTP 200 even for failed queries, so
// its exceptions list is checked too.
func (b *Broker) Query(ctx context.Context, sql string) (*ResultTable, error) {
	opts := "timeoutMs=30000"
	if b.NullHandling {
		opts = "enableNullHandling=true;" + opts
	}
	body, _ := json.Marshal(map[string]string{"sql": sql, "queryOptions": opts})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.base+"/query/sql", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range b.headers {
		req.Header.Set(k, v)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, &APIError{Op: "query", Status: resp.StatusCode, Body: b.scrub.scrub(strings.TrimSpace(string(raw)))}
	}
	rt, err := DecodeBrokerResponse(raw)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return rt, nil
}

// ErrBroker means the broker answered a query with exceptions or without a
// result table.
var ErrBroker = errors.New("broker error")

// DecodeBrokerResponse reads a broker response (numbers kept exact): its
// result table, or an ErrBroker error with every exception's code and
// message.
func DecodeBrokerResponse(raw []byte) (*ResultTable, error) {
	var br brokerResponse
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&br); err != nil {
		return nil, fmt.Errorf("decode answer: %w", err)
	}
	if len(br.Exceptions) > 0 {
		msgs := make([]string, len(br.Exceptions))
		for i, x := range br.Exceptions {
			msgs[i] = fmt.Sprintf("%d: %s", x.ErrorCode, x.Message)
		}
		return nil, fmt.Errorf("%w %s", ErrBroker, strings.Join(msgs, "; "))
	}
	if br.ResultTable == nil {
		return nil, fmt.Errorf("%w: answer has no resultTable", ErrBroker)
	}
	return &ResultTable{
		Columns: br.ResultTable.DataSchema.ColumnNames,
		Types:   br.ResultTable.DataSchema.ColumnDataTypes,
		Rows:    br.ResultTable.Rows,
	}, nil
}
