package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ServeStdio answers JSON Lines: each input line is one request object
// (answered by one verdict line) or an array of them (answered by one
// line holding the array of verdicts), in input order. Blank lines are
// skipped; a bad or overlong line is answered by a deny line saying why.
// It returns at the end of r (nil) or when ctx is cancelled.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriter(w)
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			return nil
		}
		b, tooLong, err := readLine(br, s.maxBody)
		if len(b) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("stdin: %w", err)
		}
		b = bytes.TrimSpace(b)
		var out any
		switch {
		case tooLong:
			s.m.badRequest("stdio")
			out = badInput(s.Engine().PolicyHash(), nil, fmt.Errorf("line %d: over %d bytes", line, s.maxBody))
		case len(b) == 0:
			continue
		case b[0] == '[':
			var raws []json.RawMessage
			if err := decodeStrict(b, &raws); err != nil {
				s.m.badRequest("stdio")
				out = badInput(s.Engine().PolicyHash(), nil, fmt.Errorf("line %d: %v", line, err))
				break
			}
			if len(raws) > s.maxBatch {
				s.m.badRequest("stdio")
				out = badInput(s.Engine().PolicyHash(), nil, fmt.Errorf("line %d: batch of %d requests is over the limit of %d", line, len(raws), s.maxBatch))
				break
			}
			resps := make([]Response, len(raws))
			for i, raw := range raws {
				resps[i] = s.gradeRaw(ctx, raw, "stdio")
			}
			out = resps
		default:
			resp := s.gradeRaw(ctx, b, "stdio")
			if resp.Error != "" {
				resp.Error = fmt.Sprintf("line %d: %s", line, resp.Error)
			}
			out = resp
		}
		s.reportBad(line, out)
		enc, _ := json.Marshal(out)
		if _, err := bw.Write(append(enc, '\n')); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// reportBad tells the WithBadLine callback about every bad request of out.
func (s *Server) reportBad(line int, out any) {
	if s.badLine == nil {
		return
	}
	switch o := out.(type) {
	case Response:
		if o.Error != "" {
			s.badLine(line, strings.TrimPrefix(o.Error, fmt.Sprintf("line %d: ", line)))
		}
	case []Response:
		for i, r := range o {
			if r.Error != "" {
				s.badLine(line, fmt.Sprintf("item %d: %s", i, r.Error))
			}
		}
	}
}

// readLine reads one line (without its newline) of at most max bytes;
// the rest of a longer line is read and dropped, and tooLong is set.
func readLine(br *bufio.Reader, max int64) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if int64(len(buf)+len(chunk)) > max+1 { // +1: the newline
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			if tooLong {
				return []byte{'x'}, true, err
			}
			return bytes.TrimSuffix(buf, []byte{'\n'}), false, err
		}
		if tooLong {
			return []byte{'x'}, true, nil
		}
		return bytes.TrimSuffix(buf, []byte{'\n'}), false, nil
	}
}
