//go:build !unix

package hookrelay

import (
	"io"
	"net"
	"time"
)

// dial connects to the unix socket path through the net package (which
// links no C library here).
func dial(path string, deadline time.Time) (io.ReadWriteCloser, error) {
	d := net.Dialer{Deadline: deadline}
	c, err := d.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	if !deadline.IsZero() {
		c.SetDeadline(deadline)
	}
	return c, nil
}
