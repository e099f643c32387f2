package api

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/floehq/floe/catalog"
	"github.com/floehq/floe/catalog/awsaccess"
	"github.com/floehq/floe/internal/buildinfo"
	"github.com/floehq/floe/pinot/spec"
	"github.com/floehq/floe/watcher"
)

// routeTypes are the Go types each route's handler decodes (req) and
// encodes (the answers by status). A route without a JSON body or answer
// (metrics, pprof, the CloudFormation template, 204s) has none.
type routeTypes struct {
	req  reflect.Type
	resp map[string]reflect.Type
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

func answers(status string, t reflect.Type) map[string]reflect.Type {
	return map[string]reflect.Type{status: t}
}

// handlerTypes maps "method path" to what the handler reads and writes.
func handlerTypes() map[string]routeTypes {
	probe := typeOf[map[string]string]()
	return map[string]routeTypes{
		"get /healthz":                                                  {resp: map[string]reflect.Type{"200": probe, "503": probe}},
		"get /livez":                                                    {resp: answers("200", probe)},
		"get /version":                                                  {resp: answers("200", typeOf[buildinfo.Info]())},
		"get /metrics":                                                  {},
		"get /debug/pprof/":                                             {},
		"get /debug/pprof/profile":                                      {},
		"get /debug/pprof/trace":                                        {},
		"get /api/v1/openapi.json":                                      {resp: answers("200", typeOf[map[string]any]())},
		"get /api/v1/summary":                                           {resp: answers("200", typeOf[summary]())},
		"get /api/v1/tables":                                            {resp: answers("200", typeOf[listPage]())},
		"post /api/v1/tables":                                           {req: typeOf[createRequest](), resp: answers("201", typeOf[tableView]())},
		"post /api/v1/tables/preview":                                   {req: typeOf[previewRequest](), resp: answers("200", typeOf[previewView]())},
		"get /api/v1/tables/{name}":                                     {resp: answers("200", typeOf[tableView]())},
		"delete /api/v1/tables/{name}":                                  {},
		"patch /api/v1/tables/{name}":                                   {req: typeOf[patchRequest](), resp: answers("200", typeOf[tableView]())},
		"get /api/v1/tables/{name}/status":                              {resp: answers("200", typeOf[watcher.TableStatus]())},
		"get /api/v1/tables/{name}/checkpoint":                          {resp: answers("200", typeOf[checkpointPage]())},
		"get /api/v1/tables/{name}/runs":                                {resp: answers("200", typeOf[runList]())},
		"post /api/v1/tables/{name}/trigger":                            {resp: answers("202", typeOf[triggerAnswer]())},
		"post /api/v1/tables/{name}/notify":                             {req: typeOf[notifyRequest](), resp: answers("202", typeOf[notifyAnswer]())},
		"post /api/v1/tables/{name}/pause":                              {resp: answers("200", typeOf[taskConfigAnswer]())},
		"post /api/v1/tables/{name}/resume":                             {resp: answers("200", typeOf[taskConfigAnswer]())},
		"get /api/v1/connections":                                       {resp: answers("200", typeOf[connectionList]())},
		"get /api/v1/catalog-types":                                     {resp: answers("200", typeOf[catalogTypeList]())},
		"post /api/v1/connections":                                      {req: typeOf[connectionRequest](), resp: map[string]reflect.Type{"200": typeOf[connectionView](), "201": typeOf[connectionView]()}},
		"get /api/v1/connections/{name}":                                {resp: answers("200", typeOf[connectionView]())},
		"delete /api/v1/connections/{name}":                             {},
		"post /api/v1/connections/{name}/validate":                      {resp: answers("200", typeOf[catalog.Report]())},
		"get /api/v1/connections/{name}/iam-policy":                     {resp: answers("200", typeOf[awsaccess.Result]())},
		"post /api/v1/connections/{name}/iam-policy":                    {req: typeOf[awsAccessRequest](), resp: answers("200", typeOf[awsaccess.Result]())},
		"get /api/v1/connections/{name}/cloudformation":                 {},
		"post /api/v1/connections/{name}/cloudformation":                {req: typeOf[awsAccessRequest]()},
		"get /api/v1/connections/{name}/namespaces":                     {resp: answers("200", typeOf[namespacePage]())},
		"get /api/v1/connections/{name}/namespaces/{ns}/tables":         {resp: answers("200", typeOf[catalogTablePage]())},
		"get /api/v1/connections/{name}/namespaces/{ns}/tables/{table}": {resp: answers("200", typeOf[catalog.TableInfo]())},
	}
}

// opaque are the types the document describes as free-form objects:
// Pinot's own documents, which Pinot specifies.
func opaque() []reflect.Type {
	return []reflect.Type{typeOf[spec.TableConfig](), typeOf[spec.Schema]()}
}

// schemaCheck compares OpenAPI schemas with Go types.
type schemaCheck struct {
	doc      map[string]any
	problems []string
}

func (c *schemaCheck) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// resolve follows a $ref into components.
func (c *schemaCheck) resolve(s map[string]any) map[string]any {
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		var node any = c.doc
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			node = node.(map[string]any)[part]
		}
		s = node.(map[string]any)
	}
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// jsonType is the JSON type encoding/json writes for t ("" when t
// encodes itself or holds anything).
func jsonType(t reflect.Type) string {
	switch {
	case t == timeType:
		return "string"
	case t == rawType, t.Kind() == reflect.Interface:
		return ""
	case t.Implements(marshalerType), reflect.PointerTo(t).Implements(marshalerType):
		return ""
	case t.Implements(textType), reflect.PointerTo(t).Implements(textType):
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return ""
}

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	name      string
	typ       reflect.Type
	omitEmpty bool
}

// jsonFields lists t's fields as encoding/json encodes them (embedded
// structs without a name flattened).
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: ft, omitEmpty: slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	return out
}

// compare checks schema s against Go type t at where; answer says t is
// encoded by floe (a required property must then always be written).
func (c *schemaCheck) compare(where string, s map[string]any, t reflect.Type, answer bool) {
	s = c.resolve(s)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := jsonType(t)
	if typ, ok := s["type"].(string); ok && want != "" && typ != want {
		c.errorf("%s: the document says %s, %s encodes as %s", where, typ, t, want)
		return
	}
	if want == "" {
		return
	}
	switch {
	case want == "array" && t.Kind() != reflect.String:
		if items, ok := s["items"].(map[string]any); ok {
			c.compare(where+"[]", items, t.Elem(), answer)
		} else {
			c.errorf("%s: an array (%s) without items in the document", where, t)
		}
	case want == "object" && t.Kind() == reflect.Map:
		if extra, ok := s["additionalProperties"].(map[string]any); ok {
			c.compare(where+"{}", extra, t.Elem(), answer)
		}
	case want == "object" && t.Kind() == reflect.Struct:
		c.compareStruct(where, s, t, answer)
	}
}

// compareStruct checks that the schema's properties are t's fields, each
// of its type, and that its required properties are ones t holds (and, in
// an answer, always writes).
func (c *schemaCheck) compareStruct(where string, s map[string]any, t reflect.Type, answer bool) {
	props, ok := s["properties"].(map[string]any)
	if !ok && slices.Contains(opaque(), t) {
		return
	}
	if !ok {
		c.errorf("%s: %s is documented as an object without properties", where, t)
		return
	}
	fields := map[string]jsonField{}
	for _, f := range jsonFields(t) {
		fields[f.name] = f
		p, ok := props[f.name].(map[string]any)
		if !ok {
			c.errorf("%s: field %q of %s is not in the document", where, f.name, t)
			continue
		}
		c.compare(where+"."+f.name, p, f.typ, answer)
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := fields[name]; !ok {
			c.errorf("%s: the document has property %q, which %s does not have", where, name, t)
		}
	}
	required, _ := s["required"].([]any)
	for _, r := range required {
		f, ok := fields[r.(string)]
		switch {
		case !ok:
			c.errorf("%s: required property %q is not a field of %s", where, r, t)
		case answer && f.omitEmpty:
			c.errorf("%s: required property %q of %s is omitted when empty", where, r, t)
		}
	}
}

// jsonSchema is the application/json schema of a request body or answer.
func jsonSchema(node map[string]any) (map[string]any, bool) {
	content, _ := node["content"].(map[string]any)
	js, _ := content["application/json"].(map[string]any)
	s, ok := js["schema"].(map[string]any)
	return s, ok
}

// Every route's request body and answers in openapi.json match the Go
// types its handler decodes and encodes, field by field: names, JSON types,
// required properties. A field added to a handler's type without the
// document (or the reverse) fails here. Error answers are apiError.
func TestOpenAPI_MatchesHandlerTypes(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	c := &schemaCheck{doc: doc}
	types := handlerTypes()
	paths := doc["paths"].(map[string]any)
	checked := 0
	for path, ops := range paths {
		for method, op := range ops.(map[string]any) {
			if method == "parameters" {
				continue
			}
			route := method + " " + path
			rt, ok := types[route]
			if !ok {
				t.Errorf("%s: no handler types in handlerTypes; add the route's request and answer types", route)
				continue
			}
			opm := op.(map[string]any)
			if rb, ok := opm["requestBody"].(map[string]any); ok {
				s, hasSchema := jsonSchema(c.resolve(rb))
				switch {
				case rt.req == nil && hasSchema:
					t.Errorf("%s: the document has a JSON body, handlerTypes none", route)
				case rt.req != nil && !hasSchema:
					t.Errorf("%s: the handler decodes %s, the document has no JSON body", route, rt.req)
				case hasSchema:
					c.compare(route+" body", s, rt.req, false)
					checked++
				}
			} else if rt.req != nil {
				t.Errorf("%s: the handler decodes %s, the document has no request body", route, rt.req)
			}
			responses, _ := opm["responses"].(map[string]any)
			for status, r := range responses {
				s, hasSchema := jsonSchema(c.resolve(r.(map[string]any)))
				want, typed := rt.resp[status]
				if !typed && strings.HasPrefix(status, "2") {
					if hasSchema {
						t.Errorf("%s %s: the document has a JSON answer, handlerTypes none", route, status)
					}
					continue
				}
				if !typed {
					want = typeOf[apiError]()
				}
				if !hasSchema {
					t.Errorf("%s %s: the handler writes %s, the document has no JSON schema", route, status, want)
					continue
				}
				c.compare(route+" "+status, s, want, true)
				checked++
			}
			for status := range rt.resp {
				if _, ok := responses[status]; !ok {
					t.Errorf("%s: the handler answers %s, the document does not list it", route, status)
				}
			}
		}
	}
	for route := range types {
		method, path, _ := strings.Cut(route, " ")
		if _, ok := paths[path].(map[string]any)[method]; !ok {
			t.Errorf("handlerTypes names %s, which the document does not describe", route)
		}
	}
	for _, p := range c.problems {
		t.Error(p)
	}
	if checked < 60 {
		t.Fatalf("only %d bodies and answers compared", checked)
	}
}
