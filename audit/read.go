package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxLine is the longest line a [Reader] accepts.
const MaxLine = 16 << 20

// LineError reports a complete line that is not a valid entry. The reader
// has moved past it: calling Next again continues with the following line.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("audit: line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Reader reads entries from an audit log, one per line.
type Reader struct {
	r    *bufio.Reader
	line int
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Next returns the next entry. At the end it returns io.EOF; a last line
// without its newline (a torn write) is skipped, not returned. A complete
// line that does not decode is a [*LineError]; other errors come from the
// underlying reader.
func (r *Reader) Next() (Entry, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return Entry{}, err
		}
		r.line++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return Entry{}, &LineError{Line: r.line, Err: err}
		}
		return e, nil
	}
}

// readLine returns one complete line without its newline. A partial last
// line is dropped (io.EOF).
func (r *Reader) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(buf) > MaxLine {
				return nil, &LineError{Line: r.line + 1, Err: errors.New("line too long")}
			}
		case errors.Is(err, io.EOF):
			return nil, io.EOF // buf, if any, is a torn trailing line
		default:
			return nil, err
		}
	}
}

// ReadAll reads every entry from r. A torn trailing line is skipped; a
// malformed complete line is returned as a [*LineError] along with the
// entries read so far.
func ReadAll(r io.Reader) ([]Entry, error) {
	rd := NewReader(r)
	var out []Entry
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

// ReadFile reads every entry of the log at path; see [ReadAll].
func ReadFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f)
}
