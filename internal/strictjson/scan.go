package strictjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
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

// value checks the value at s.i against t (nil: any type).
func (s *scanner) value(t reflect.Type) *Error {
	s.ws()
	if s.i >= len(s.b) {
		s.bad = true
		return nil
	}
	t = deref(t)
	switch c := s.b[s.i]; c {
	case '{':
		s.i++
		return s.object(t)
	case '[':
		s.i++
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && !isRaw(t) {
			elem = t.Elem()
		}
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return nil
		}
		for n := 0; ; n++ {
			s.path = append(s.path, pathElem{idx: n})
			if err := s.value(elem); err != nil || s.bad {
				return err
			}
			s.path = s.path[:len(s.path)-1]
			s.ws()
			if s.i >= len(s.b) {
				s.bad = true
				return nil
			}
			switch s.b[s.i] {
			case ',':
				s.i++
			case ']':
				s.i++
				return nil
			default:
				s.bad = true
				return nil
			}
		}
	case '"':
		s.str()
		return nil
	default:
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

func (s *scanner) object(t reflect.Type) *Error {
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
		if fields != nil {
			if ft, ok := fields.exact[string(key)]; ok {
				next = ft
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
		if err := s.value(next); err != nil || s.bad {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i >= len(s.b) {
			s.bad = true
			return nil
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			s.bad = true
			return nil
		}
	}
}
