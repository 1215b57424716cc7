package server

import (
	"strconv"
	"unicode/utf8"

	"github.com/rivumi/rivumi/engine"
)

// appendResponse appends r exactly as encoding/json's Encoder writes it
// (HTML-safe escaping, invalid UTF-8 as U+FFFD, field order and omitempty
// as the struct tags say), without reflection: every answer is encoded,
// and reflection was a sixth of the handler's own CPU.
// TestAppendResponseMatchesJSON compares the two on every testcase's
// verdict and on awkward strings, and fails when Response, Verdict, Reason
// or Grant gains a field this function does not write.
func appendResponse(b []byte, r *Response) []byte {
	b = append(b, '{')
	if r.Command != "" {
		b = appendString(append(b, `"command":`...), r.Command)
		b = append(b, ',')
	}
	if len(r.Argv) > 0 {
		b = appendStrings(append(b, `"argv":`...), r.Argv)
		b = append(b, ',')
	}
	b = appendString(append(b, `"decision":`...), r.Decision.String())
	b = append(b, `,"reasons":`...)
	if r.Reasons == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendReason(b, &r.Reasons[i])
		}
		b = append(b, ']')
	}
	b = appendString(append(b, `,"policy":`...), r.Policy)
	if len(r.Grants) > 0 {
		b = append(b, `,"grants":[`...)
		for i, g := range r.Grants {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStrings(append(b, `{"prefix":`...), g.Prefix)
			b = appendStrings(append(b, `,"rules":`...), g.Rules)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.Error != "" {
		b = appendString(append(b, `,"error":`...), r.Error)
	}
	return append(b, '}')
}

func appendReason(b []byte, rs *engine.Reason) []byte {
	b = appendString(append(b, `{"rule":`...), rs.Rule)
	b = appendString(append(b, `,"layer":`...), string(rs.Layer))
	b = appendString(append(b, `,"decision":`...), rs.Decision.String())
	b = strconv.AppendInt(append(b, `,"segment":`...), int64(rs.Segment), 10)
	for _, f := range [...]struct{ key, val string }{
		{`,"title":`, rs.Title}, {`,"justification":`, rs.Justification}, {`,"text":`, rs.Text}, {`,"suggest":`, rs.Suggest},
	} {
		if f.val != "" {
			b = appendString(append(b, f.key...), f.val)
		}
	}
	if len(rs.Prefix) > 0 {
		b = appendStrings(append(b, `,"prefix":`...), rs.Prefix)
	}
	if rs.Grantable {
		b = append(b, `,"grantable":true`...)
	}
	return append(b, '}')
}

// appendStrings appends a JSON array of strings; nil is null.
func appendStrings(b []byte, l []string) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// plainASCII holds the ASCII bytes that appendString copies as they are:
// printable, and neither a quote, a backslash nor an HTML special.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString appends s as a JSON string the way encoding/json does with
// HTML escaping on: <, > and & as \u003c and the like, control characters
// as \n, \t, \b, \f, \r or \u00XX, invalid UTF-8 as \ufffd, and U+2028 and
// U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plainASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
