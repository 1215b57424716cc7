package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// scanner checks the keys of a JSON document against a destination type
// in one pass over the bytes, without tokens or allocation for ordinary
// input (keys without escapes, objects of up to len(seenBuf) keys). It
// trusts the bytes only as far as it needs to find keys and values: on
// anything it does not expect it gives up (ok false), and [Decode] runs
// the token-based [checker] instead, which names the syntax error.
// Paths are built only for an error, from the stack of keys and indexes.
type scanner struct {
	b    []byte
	i    int
	cfg  config
	path []pathElem
	bad  bool // the bytes are not what the scanner expects: fall back
	// slow: a value did not fit its destination (or needs what only
	// encoding/json does): the destination given to value is incomplete,
	// and encoding/json decodes instead.
	slow bool
}

type pathElem struct {
	key []byte
	idx int // -1: a key
}

func (s *scanner) pathString() string {
	var sb strings.Builder
	sb.WriteByte('$')
	for _, e := range s.path {
		if e.idx >= 0 {
			sb.WriteString("[" + strconv.Itoa(e.idx) + "]")
		} else {
			sb.WriteByte('.')
			sb.Write(e.key)
		}
	}
	return sb.String()
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// more reads what follows an element of an array or object: a comma
// (true: another element comes) or close (false: the end). Anything else,
// or the end of the text, marks the input bad (false).
func (s *scanner) more(close byte) bool {
	s.ws()
	switch {
	case s.i >= len(s.b):
		s.bad = true
	case s.b[s.i] == ',':
		s.i++
		return true
	case s.b[s.i] == close:
		s.i++
	default:
		s.bad = true
	}
	return false
}

// value checks the value at s.i against t (nil: any type) and, when dst
// is valid (a settable zero value of type t, which [fastType] accepts),
// decodes it into dst as encoding/json would.
func (s *scanner) value(t reflect.Type, dst reflect.Value) *Error {
	s.ws()
	if s.i >= len(s.b) {
		s.bad = true
		return nil
	}
	if dst.IsValid() && s.slow {
		dst = reflect.Value{}
	}
	for dst.IsValid() && dst.Kind() == reflect.Pointer {
		if s.b[s.i] == 'n' { // null: a nil pointer
			dst = reflect.Value{}
			break
		}
		dst.Set(reflect.New(dst.Type().Elem()))
		dst = dst.Elem()
	}
	t = deref(t)
	switch c := s.b[s.i]; c {
	case '{':
		s.i++
		if dst.IsValid() && dst.Kind() != reflect.Struct {
			s.slow, dst = true, reflect.Value{}
		}
		return s.object(t, dst)
	case '[':
		s.i++
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && !isRaw(t) {
			elem = t.Elem()
		}
		if dst.IsValid() {
			if dst.Kind() != reflect.Slice {
				s.slow, dst = true, reflect.Value{}
			} else {
				dst.Set(reflect.MakeSlice(dst.Type(), 0, 4))
			}
		}
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return nil
		}
		for n := 0; ; n++ {
			s.path = append(s.path, pathElem{idx: n})
			var ev reflect.Value
			if dst.IsValid() && !s.slow {
				dst.Set(reflect.Append(dst, reflect.Zero(dst.Type().Elem())))
				ev = dst.Index(n)
			}
			if err := s.value(elem, ev); err != nil || s.bad {
				return err
			}
			s.path = s.path[:len(s.path)-1]
			if !s.more(']') {
				return nil
			}
		}
	case '"':
		q := s.i
		raw, special := s.str()
		if dst.IsValid() && !s.bad {
			switch {
			case dst.Kind() != reflect.String:
				s.slow = true
			case !special:
				dst.SetString(string(raw))
			default:
				// Escapes and non-ASCII: encoding/json's own unquoting
				// (invalid UTF-8 and lone surrogates become U+FFFD).
				var str string
				if err := json.Unmarshal(s.b[q:s.i], &str); err != nil {
					s.bad = true
					return nil
				}
				dst.SetString(str)
			}
		}
		return nil
	default:
		if dst.IsValid() {
			switch {
			case c == 'n': // null leaves the zero value
			case dst.Kind() == reflect.Bool && (c == 't' || c == 'f'):
				dst.SetBool(c == 't')
			default:
				s.slow = true
			}
		}
		// A number or literal: skip to the next delimiter; encoding/json
		// checks its grammar when it decodes.
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if s.i == start {
					s.bad = true
				}
				return nil
			case '"', '{', '[', ':':
				s.bad = true
				return nil
			}
			s.i++
		}
		return nil
	}
}

// str skips the string at s.i and returns its bytes between the quotes
// and whether they hold an escape or a non-ASCII byte.
func (s *scanner) str() (raw []byte, special bool) {
	s.i++ // '"'
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, special
		case c == '\\':
			special = true
			s.i += 2
		case c < 0x20:
			s.bad = true
			return nil, false
		case c >= utf8.RuneSelf:
			special = true
			s.i++
		default:
			s.i++
		}
	}
	s.bad = true
	return nil, false
}

// seenBuf is how many keys of one object are remembered without a map.
const seenBuf = 16

func (s *scanner) object(t reflect.Type, dst reflect.Value) *Error {
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
	var buf [seenBuf][]byte
	seen := buf[:0]
	var seenMap map[string]bool
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			s.bad = true
			return nil
		}
		q := s.i
		raw, special := s.str()
		if s.bad {
			return nil
		}
		key := raw
		if special {
			// Escapes and non-ASCII bytes: let encoding/json say what
			// the key is (invalid UTF-8 becomes U+FFFD, as it decodes).
			var k string
			if err := json.Unmarshal(s.b[q:s.i], &k); err != nil {
				s.bad = true
				return nil
			}
			key = []byte(k)
		}
		dup := false
		if seenMap != nil {
			dup = seenMap[string(key)]
			seenMap[string(key)] = true
		} else {
			for _, k := range seen {
				if bytes.Equal(k, key) {
					dup = true
					break
				}
			}
			if len(seen) < seenBuf {
				seen = append(seen, key)
			} else {
				seenMap = make(map[string]bool, 2*seenBuf)
				for _, k := range seen {
					seenMap[string(k)] = true
				}
				seenMap[string(key)] = true
			}
		}
		if dup {
			return &Error{Path: s.pathString(), Key: string(key), Msg: "duplicate key (readers disagree on which one counts)"}
		}
		next := elem
		var fv reflect.Value
		if fields != nil {
			if ft, ok := fields.exact[string(key)]; ok {
				next = ft
				if dst.IsValid() && !s.slow {
					fv = dst.Field(fields.index[string(key)])
				}
			} else if f := fields.fold(string(key)); f != "" {
				return &Error{Path: s.pathString(), Key: string(key), Msg: "keys are case-sensitive: the field is " + strconv.Quote(f)}
			} else if !s.cfg.allowUnknown {
				return &Error{Path: s.pathString(), Key: string(key), Msg: "unknown key"}
			}
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			s.bad = true
			return nil
		}
		s.i++
		s.path = append(s.path, pathElem{key: key, idx: -1})
		if err := s.value(next, fv); err != nil || s.bad {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		if !s.more('}') {
			return nil
		}
	}
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	fastTypes           sync.Map // reflect.Type → bool
)

// fastType reports whether the scanner decodes values of type t itself:
// strings, bools, pointers, slices (not []byte) and structs of those
// with plainly named fields (no embedding, no ",string", no method of
// their own for decoding). Anything else goes to encoding/json.
func fastType(t reflect.Type) bool {
	if ok, done := fastTypes.Load(t); done {
		return ok.(bool)
	}
	ok := fastKind(t, 0)
	fastTypes.Store(t, ok)
	return ok
}

func fastKind(t reflect.Type, depth int) bool {
	if depth > 8 || t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool:
		return true
	case reflect.Pointer:
		return fastKind(t.Elem(), depth+1)
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 && fastKind(t.Elem(), depth+1)
	case reflect.Struct:
		fs := fieldsOf(t)
		if !fs.plain {
			return false
		}
		for _, ft := range fs.exact {
			if !fastKind(ft, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
