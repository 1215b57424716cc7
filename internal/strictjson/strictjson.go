// Package strictjson decodes the JSON that reaches rivumi from outside
// (batch lines, serve requests, hook payloads) so that every reader of the
// same bytes sees the same value.
//
// encoding/json matches object keys to struct fields case-insensitively and
// lets the last of two equal keys win, while the agent or client that sent
// the bytes may read the first, or only the exact key. A payload such as
// {"tool_name":"Bash","Tool_Name":"Read"} is then graded as one tool and run
// as another. [Decode] refuses such input: a key that differs from a field
// of the destination only in case, a key that appears twice in one object,
// an unknown key (unless [AllowUnknown]), and anything after the value.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Error is a refused input. Path locates the value ("$" is the top,
// "$.tool_input.command", "$[2]"); Key is the offending key, if any.
type Error struct {
	Path string
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("key %q at %s: %s", e.Key, e.Path, e.Msg)
	}
	return fmt.Sprintf("at %s: %s", e.Path, e.Msg)
}

// Option changes what [Decode] accepts.
type Option func(*config)

type config struct{ allowUnknown bool }

// AllowUnknown accepts keys that the destination does not declare (they
// are dropped). For payloads whose senders add fields over time, such as
// agent hook payloads. Case variants of declared keys and duplicate keys
// are still refused.
func AllowUnknown() Option { return func(c *config) { c.allowUnknown = true } }

// Decode decodes exactly one JSON value from b into v (a non-nil pointer).
// It returns an *Error for a duplicate key in any object, a key that
// matches a field of the destination only when case is ignored, an
// unknown key (unless AllowUnknown), malformed JSON, or data after the
// value; v is not changed by a refused input. Type mismatches are
// reported with the field's path. Decode is safe for concurrent use.
func Decode(b []byte, v any, opts ...Option) error {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("strictjson: Decode needs a non-nil pointer")
	}
	var pbuf [8]pathElem
	t := rv.Type().Elem()
	if fastType(t) && rv.Elem().IsZero() && json.Valid(b) {
		// One pass: check and decode (into a fresh value, so that a
		// refused input leaves v as it was).
		fresh := reflect.New(t).Elem()
		sc := scanner{b: b, cfg: cfg, path: pbuf[:0]}
		if err := sc.value(t, fresh); err != nil {
			return err
		}
		if sc.ws(); !sc.bad && !sc.slow && sc.i == len(b) {
			rv.Elem().Set(fresh)
			return nil
		}
	}
	sc := scanner{b: b, cfg: cfg, path: pbuf[:0]}
	if err := sc.value(t, reflect.Value{}); err != nil {
		return err
	}
	if sc.ws(); sc.bad || sc.i != len(b) {
		// Not JSON as the scanner expects it: the token-based checker
		// names the problem.
		if err := checkTokens(b, t, cfg); err != nil {
			return err
		}
	}
	d2 := json.NewDecoder(bytes.NewReader(b))
	if !cfg.allowUnknown {
		d2.DisallowUnknownFields()
	}
	if err := d2.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			path := "$"
			if te.Field != "" {
				path += "." + te.Field
			}
			return &Error{Path: path, Msg: fmt.Sprintf("expected %s, got %s", jsonKind(te.Type), te.Value)}
		}
		return &Error{Path: "$", Msg: err.Error()}
	}
	return nil
}

// checkTokens checks b against t with encoding/json's tokens: slower
// than [scanner], but its errors name every syntax problem.
func checkTokens(b []byte, t reflect.Type, cfg config) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	c := &checker{dec: dec, cfg: cfg}
	if err := c.value(t, "$"); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Path: "$", Msg: "data after the JSON value (one value per input)"}
	}
	return nil
}

type checker struct {
	dec *json.Decoder
	cfg config
}

// value checks the next JSON value against type t (nil: any type).
func (c *checker) value(t reflect.Type, path string) error {
	tok, err := c.dec.Token()
	if err != nil {
		return syntaxError(err, path)
	}
	t = deref(t)
	d, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar: types are checked by the second decode
	}
	switch d {
	case '{':
		return c.object(t, path)
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && !isRaw(t) {
			elem = t.Elem()
		}
		for i := 0; c.dec.More(); i++ {
			if err := c.value(elem, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		_, err := c.dec.Token() // ']'
		return syntaxError(err, path)
	}
	return &Error{Path: path, Msg: "unexpected " + d.String()}
}

func (c *checker) object(t reflect.Type, path string) error {
	var fields *fieldSet
	var elem reflect.Type
	if t != nil && !isRaw(t) {
		switch t.Kind() {
		case reflect.Struct:
			fields = fieldsOf(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	seen := make(map[string]bool)
	for c.dec.More() {
		tok, err := c.dec.Token()
		if err != nil {
			return syntaxError(err, path)
		}
		key, _ := tok.(string)
		if seen[key] {
			return &Error{Path: path, Key: key, Msg: "duplicate key (readers disagree on which one counts)"}
		}
		seen[key] = true
		next := elem
		if fields != nil {
			ft, ok := fields.exact[key]
			switch {
			case ok:
				next = ft
			case fields.fold(key) != "":
				return &Error{Path: path, Key: key, Msg: fmt.Sprintf("keys are case-sensitive: the field is %q", fields.fold(key))}
			case !c.cfg.allowUnknown:
				return &Error{Path: path, Key: key, Msg: "unknown key"}
			}
		}
		if err := c.value(next, path+"."+key); err != nil {
			return err
		}
	}
	_, err := c.dec.Token() // '}'
	return syntaxError(err, path)
}

func syntaxError(err error, path string) error {
	if err == nil {
		return nil
	}
	if err == io.EOF {
		return &Error{Path: path, Msg: "unexpected end of JSON input"}
	}
	return &Error{Path: path, Msg: "malformed JSON: " + err.Error()}
}

var rawType = reflect.TypeFor[json.RawMessage]()

func isRaw(t reflect.Type) bool { return t == rawType }

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && t.Kind() == reflect.Interface {
		return nil
	}
	return t
}

// fieldSet is a struct type's JSON keys: exact names to field types, and
// the names in declaration order.
type fieldSet struct {
	exact map[string]reflect.Type
	names []string
	// index is each name's field number, and plain whether every
	// field is a direct one (no embedding, no ",string", no two fields
	// of one name): only then does index describe the struct.
	index map[string]int
	plain bool
}

// fold returns the field that key names when case is ignored as
// encoding/json ignores it (Unicode simple folding, as [strings.EqualFold]:
// "ſ" is "s", "K" (Kelvin) is "k"), or "".
func (fs *fieldSet) fold(key string) string {
	for _, n := range fs.names {
		if strings.EqualFold(n, key) {
			return n
		}
	}
	return ""
}

var fieldCache sync.Map // reflect.Type → *fieldSet

func fieldsOf(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{exact: map[string]reflect.Type{}, index: map[string]int{}, plain: true}
	addFields(fs, t, 0)
	fieldCache.Store(t, fs)
	return fs
}

// addFields follows encoding/json's rules for the names it decodes:
// exported fields, the tag's name or the field's, "-" skipped, untagged
// embedded structs flattened (outer names win).
func addFields(fs *fieldSet, t reflect.Type, depth int) {
	if depth > 8 {
		return
	}
	var embedded []reflect.Type
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous || depth > 0 || strings.Contains(","+opts+",", ",string,") {
			fs.plain = false
		}
		if f.Anonymous && name == "" {
			if et := deref(f.Type); et != nil && et.Kind() == reflect.Struct {
				embedded = append(embedded, et)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := fs.exact[name]; dup {
			fs.plain = false
			continue
		}
		fs.exact[name] = f.Type
		fs.index[name] = i
		fs.names = append(fs.names, name)
	}
	for _, et := range embedded {
		addFields(fs, et, depth+1)
	}
}

// jsonKind names the JSON value a Go type decodes from, as a message to
// the sender says it ("an array", not "[]verdict.Grant"): the sender
// writes JSON and should not meet the receiver's type names.
func jsonKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}
