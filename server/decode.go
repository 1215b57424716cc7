package server

import (
	"encoding/json"
	"unicode/utf8"
)

// decodeRequest decodes one request body into r, with the rules of
// [strictjson.Decode] (no unknown, case-variant or duplicate key, nothing
// after the value; errors name the field). The common body — an object of
// the string fields, argv as an array of strings, follow_symlinks — is
// read by [fastRequest] in one pass that copies the body once; anything
// else, and every body that is refused, goes through strictjson, which
// names the problem.
func decodeRequest(b []byte, r *Request) error {
	if fastRequest(b, r) {
		return nil
	}
	return decodeStrict(b, r)
}

// Request's keys, as bits of fastRequest's set of keys seen.
const (
	keyCommand = 1 << iota
	keyArgv
	keyCwd
	keyWorkspace
	keyHome
	keyShell
	keyFollow
)

// strSpan is a JSON string's contents, b[i:j]; dec, when set, is its
// value (a string with escapes, or not valid UTF-8, decoded by
// encoding/json).
type strSpan struct {
	i, j int
	dec  *string
}

// fastRequest decodes b into r when b is a body that strictjson.Decode
// accepts and decodes to the same Request (FuzzFastRequest checks both),
// and reports whether it did; otherwise r is left as it was. Its plain
// strings share one copy of the body (each its own copy when the strings
// are less than half of the body, so that a padded body is not kept alive
// by a short command); a string with escapes is decoded by encoding/json.
// It takes a body only when it is sure: null, a number, grants, an empty
// argv, a key that is not one of Request's exact names or has an escape,
// a key given twice, or anything after the object sends the body to
// strictjson.
func fastRequest(b []byte, r *Request) bool {
	var (
		str    [keyShell + 1]strSpan // by key bit: command, cwd, workspace, home, shell
		argv   []strSpan
		follow bool
		seen   int
		used   int // bytes inside the strings
	)
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i++
	for first := true; ; first = false {
		i = skipWS(b, i)
		if first && i < len(b) && b[i] == '}' {
			return false // {}: strictjson's answer (an invalid request) is as cheap
		}
		k, next, ok := jsonString(b, i)
		if !ok || k.dec != nil {
			return false
		}
		var bit int
		switch string(b[k.i:k.j]) {
		case "command":
			bit = keyCommand
		case "argv":
			bit = keyArgv
		case "cwd":
			bit = keyCwd
		case "workspace":
			bit = keyWorkspace
		case "home":
			bit = keyHome
		case "shell":
			bit = keyShell
		case "follow_symlinks":
			bit = keyFollow
		default:
			return false // unknown, case-variant or grants: strictjson
		}
		if seen&bit != 0 {
			return false // a duplicate: strictjson names it
		}
		seen |= bit
		i = skipWS(b, next)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		switch bit {
		case keyArgv:
			if i >= len(b) || b[i] != '[' {
				return false
			}
			i++
			for {
				s, next, ok := jsonString(b, skipWS(b, i))
				if !ok {
					return false // ] of an empty argv, or not a string
				}
				argv = append(argv, s)
				used += s.j - s.i
				i = skipWS(b, next)
				if i < len(b) && b[i] == ',' {
					i++
					continue
				}
				if i >= len(b) || b[i] != ']' {
					return false
				}
				i++
				break
			}
		case keyFollow:
			switch {
			case hasPrefixAt(b, i, "true"):
				follow, i = true, i+4
			case hasPrefixAt(b, i, "false"):
				follow, i = false, i+5
			default:
				return false
			}
		default:
			s, next, ok := jsonString(b, i)
			if !ok {
				return false
			}
			str[bit] = s
			used += s.j - s.i
			i = next
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] != '}' || skipWS(b, i+1) != len(b) {
			return false // not the end of the object, or something after it
		}
		break
	}
	// One copy of the body, which the plain strings share; or, when the
	// strings are a small part of it, a copy each.
	shared := 2*used >= len(b)
	var body string
	if shared {
		body = string(b)
	}
	val := func(s strSpan) string {
		switch {
		case s.dec != nil:
			return *s.dec
		case shared:
			return body[s.i:s.j]
		}
		return string(b[s.i:s.j])
	}
	out := Request{
		Cwd: val(str[keyCwd]), Workspace: val(str[keyWorkspace]),
		Home: val(str[keyHome]), Shell: val(str[keyShell]), FollowSymlinks: follow,
	}
	if seen&keyCommand != 0 {
		c := val(str[keyCommand])
		out.Command = &c
	}
	if seen&keyArgv != 0 {
		out.Argv = make([]string, len(argv))
		for k, s := range argv {
			out.Argv[k] = val(s)
		}
	}
	*r = out
	return true
}

// skipWS returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonString reads the JSON string that starts at b[i]: its contents, and
// the index after its closing quote. A string with an escape or invalid
// UTF-8 is decoded by encoding/json (s.dec), so that its value is exactly
// the one strictjson gives; ok is false when b[i] starts no valid string.
func jsonString(b []byte, i int) (s strSpan, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return s, 0, false
	}
	plain, ascii := true, true
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s.i, s.j = i+1, j
			if plain && (ascii || utf8.Valid(b[i+1:j])) {
				return s, j + 1, true
			}
			var v string
			if json.Unmarshal(b[i:j+1], &v) != nil {
				return s, 0, false
			}
			s.dec = &v
			return s, j + 1, true
		case c == '\\':
			plain = false
			j++ // the escaped byte (checked by encoding/json)
		case c < 0x20:
			return s, 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return s, 0, false
}

func hasPrefixAt(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}
