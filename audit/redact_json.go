package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// RedactJSON returns the JSON document b with every string in it (object
// keys included) passed through [Redact], and the value of every string
// field whose key names a secret ("password", "api_key", …) replaced by
// [Redacted]. The structure, the order of keys and the numbers are kept,
// so the result is valid JSON whatever the secrets looked like; it is
// compact. Invalid JSON is an error.
func RedactJSON(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	if err := redactValue(dec, &out, ""); err != nil {
		return nil, fmt.Errorf("redact json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("redact json: trailing data")
	}
	return out.Bytes(), nil
}

// redactValue copies one value from dec to out; key is the object key it
// belongs to ("" outside objects).
func redactValue(dec *json.Decoder, out *bytes.Buffer, key string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out.WriteByte('{')
			for i := 0; dec.More(); i++ {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if i > 0 {
					out.WriteByte(',')
				}
				writeString(out, Redact(k))
				out.WriteByte(':')
				if err := redactValue(dec, out, k); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			out.WriteByte('}')
		case '[':
			out.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				if err := redactValue(dec, out, ""); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			out.WriteByte(']')
		}
	case string:
		if key != "" && t != "" && secretName(key) {
			writeString(out, Redacted)
		} else {
			writeString(out, Redact(t))
		}
	case json.Number:
		out.WriteString(t.String())
	case bool:
		fmt.Fprint(out, t)
	case nil:
		out.WriteString("null")
	}
	return nil
}

func writeString(out *bytes.Buffer, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) //nolint:errcheck // a string always encodes
	out.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
