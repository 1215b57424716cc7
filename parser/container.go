package parser

import (
	"slices"
	"strings"
)

// containerRun grades the command of `docker|podman run [OPTIONS] IMAGE
// [CMD…]` as a child segment when the container binds host paths
// (-v SRC:DST, --volume, --mount type=bind,source=SRC,target=DST): a
// word naming DST or a path below it is the host's SRC (…); a container
// path that holds DST (/ holds /h) reaches SRC too. Any other absolute
// path is the container's own, graded as a path under the container's root
// directory (never a host system directory). Without a bind nothing the
// command does reaches the host's files, and no child is made.
func (p *walker) containerRun(f *frame, seg *Segment, operands []word) {
	if seg.Subcommand != "run" || len(operands) < 1 {
		return
	}
	binds := containerBinds(seg.Options["volume"], seg.Options["mount"])
	if len(binds) == 0 {
		return
	}
	cmd := operands[1:]
	if ep := seg.Options["entrypoint"]; len(ep) > 0 && ep[len(ep)-1] != "" {
		cmd = append([]word{{text: ep[len(ep)-1]}}, cmd...)
	}
	if len(cmd) == 0 || cmd[0].dynamic {
		return
	}
	ws := make([]word, len(cmd))
	for i, w := range cmd {
		ws[i] = w
		if w.dynamic || i == 0 || !strings.HasPrefix(w.text, "/") {
			continue
		}
		host := containerRootfs + w.text
		for _, b := range binds {
			switch rest, ok := strings.CutPrefix(w.text, b.dst); {
			case ok && (rest == "" || rest[0] == '/'):
				host = strings.TrimSuffix(b.src, "/") + rest
				if host == "" {
					host = "/"
				}
			case w.text == "/" || strings.HasPrefix(b.dst, strings.TrimSuffix(w.text, "/")+"/"):
				host = b.src // an ancestor of the bind holds the host's SRC
			}
		}
		ws[i] = word{text: host, path: host}
	}
	p.execChild(f, seg, ws, "", "")
}

// containerRootfs stands for the directory a container's own files live
// in on the host.
const containerRootfs = "/var/lib/containers/rootfs"

type bind struct{ src, dst string }

// containerBinds reads -v SRC:DST[:OPTS] and --mount
// type=bind,source=SRC,target=DST: the writable binds whose SRC is an
// absolute host path (a read-only bind, :ro or readonly, changes nothing on
// the host).
func containerBinds(volumes, mounts []string) []bind {
	var out []bind
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 3 && slices.ContainsFunc(strings.Split(parts[2], ","), func(o string) bool { return o == "ro" || o == "readonly" }) {
			continue
		}
		if len(parts) >= 2 && strings.HasPrefix(parts[0], "/") && strings.HasPrefix(parts[1], "/") {
			out = append(out, bind{src: parts[0], dst: strings.TrimSuffix(parts[1], "/")})
		}
	}
	for _, m := range mounts {
		var b bind
		isBind, ro := false, false
		for _, kv := range strings.Split(m, ",") {
			k, v, hasV := strings.Cut(kv, "=")
			switch k {
			case "type":
				isBind = v == "bind"
			case "source", "src":
				b.src = v
			case "target", "destination", "dst":
				b.dst = strings.TrimSuffix(v, "/")
			case "readonly", "ro":
				ro = !hasV || v == "true" || v == "1"
			}
		}
		if isBind && !ro && strings.HasPrefix(b.src, "/") && strings.HasPrefix(b.dst, "/") {
			out = append(out, b)
		}
	}
	return out
}
