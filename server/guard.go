package server

import (
	"net"
	"net/http"
	"strings"
)

// peerListener hands on only the connections of this user's processes
// ([peerUID]); another user's is closed unanswered, on every protocol the
// socket carries (HTTP and relayed hook calls alike).
type peerListener struct {
	net.Listener
	logf func(format string, args ...any)
}

func (l peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if err := peerUID(c); err != nil {
			l.logf("refused a connection: %v", err)
			c.Close()
			continue
		}
		return c, nil
	}
}

// localHTTP guards the HTTP API on a listener meant for this machine: a
// cross-origin browser request is refused (a page must not post commands
// to the server, nor fill its decision log), and on a loopback TCP
// address so is a Host header that is not a loopback name (a page that
// rebinds its DNS name to 127.0.0.1). A unix socket cannot be reached by
// a browser: it keeps only the origin check (its clients name any host).
func localHTTP(next http.Handler, loopback bool) http.Handler {
	h := next
	if loopback {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !loopbackHost(r.Host) {
				http.Error(w, "rivumi serve: Host "+r.Host+" is not a loopback name", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	return http.NewCrossOriginProtection().Handler(h)
}

// loopbackHost reports whether the Host header host (with or without a
// port) names this machine: localhost or a loopback address.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
