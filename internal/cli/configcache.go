package cli

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rivumi/rivumi/rules"
)

// foundConfigs remembers which configuration each project leads to, so
// that serve, which finds the configuration of every request, reads and
// hashes the files only when one changed. The walk up to the repository
// root runs for every request (it is what names the project); what the
// project's files make is reused only while a stat of every file it was
// read from (the user's and project's files, the rule files and policy
// directories they name, the trust store) gives the same device, inode,
// mode, size, mtime and ctime as when it was read. An edit, `rivumi
// trust` (which replaces trusted.json) and its revocation therefore count
// from the next request, as [server.WithConfigs] promises.
//
// A file changed within racyWindow of being read is not remembered: a
// second write in the same tick of a coarse file-system clock could leave
// the stat unchanged (git's "racy" entries). Entries live at most
// foundMaxAge, and where stat gives no ctime and inode (not Linux) nothing
// is remembered.
var foundConfigs = newFoundCache()

var (
	racyWindow  = 2 * time.Second
	foundMaxAge = 10 * time.Second
)

// maxFound bounds foundConfigs (past it, it starts over).
const maxFound = 256

// foundCache is read on every request and written when a configuration
// changes: readers load the map without a lock, writers replace it with a
// copy (under mu, so that no write is lost).
type foundCache struct {
	mu   sync.Mutex // held by writers
	m    atomic.Pointer[map[foundKey]*foundEntry]
	hits atomic.Int64 // answers given from m (for tests)
}

func newFoundCache() *foundCache {
	fc := &foundCache{}
	fc.reset()
	return fc
}

// foundKey is everything besides the files' contents that the answer of
// loadConfigsDeps depends on.
type foundKey struct {
	noDir        bool   // no directory: the user's file alone
	user, trust  string // the user's file and the trust store (from the environment)
	proj, projEr string // rules.FindProjectConfig's answer
}

// found is a configuration as loadConfigsID gives it, with the warnings
// it printed.
type found struct {
	cfgs     []*rules.Config
	problems []string
	id       string
	warnings string
}

type foundEntry struct {
	found
	sigs []fileSig
	at   time.Time
}

// find returns the configuration for a command run in dir.
func (fc *foundCache) find(ctx context.Context, dir string) found {
	compute := func(deps *configDeps) found {
		var w strings.Builder
		cfgs, problems, id := loadConfigsDeps(withWarnings(ctx, &w), dir, deps)
		return found{cfgs: cfgs, problems: problems, id: id, warnings: w.String()}
	}
	key, ok := keyFor(dir)
	if !ok {
		return compute(nil)
	}
	e := (*fc.m.Load())[key]
	if e != nil && time.Since(e.at) < foundMaxAge && sigsHold(e.sigs) {
		fc.hits.Add(1)
		return e.found
	}
	// The files are stat'ed before the answer that is kept is read: a
	// change after the stat shows in the next one.
	var deps configDeps
	first := compute(&deps)
	at := time.Now()
	sigs, ok := deps.sigs(at)
	if !ok {
		return first
	}
	var again configDeps
	f := compute(&again)
	if !again.same(&deps) || again.projFound(key) {
		return f
	}
	fc.mu.Lock()
	m := map[foundKey]*foundEntry{}
	if old := *fc.m.Load(); len(old) < maxFound {
		maps.Copy(m, old)
	}
	m[key] = &foundEntry{found: f, sigs: sigs, at: at}
	fc.m.Store(&m)
	fc.mu.Unlock()
	return f
}

// reset forgets every entry (for tests).
func (fc *foundCache) reset() {
	fc.mu.Lock()
	m := map[foundKey]*foundEntry{}
	fc.m.Store(&m)
	fc.mu.Unlock()
}

func keyFor(dir string) (foundKey, bool) {
	p := userPaths()
	if p.err != nil {
		return foundKey{}, false
	}
	k := foundKey{noDir: dir == "", user: p.user, trust: p.trust}
	if dir != "" {
		p, err := rules.FindProjectConfig(dir)
		k.proj, k.projEr = p, errText(err)
	}
	return k, true
}

// configPaths are the user's configuration file and trust store for the
// environment they were computed in.
type configPaths struct {
	xdg, home   string // XDG_CONFIG_HOME and the home directory
	user, trust string
	err         error
}

// lastPaths is the configPaths of the last request: the environment
// rarely changes, and computing them allocates.
var lastPaths atomic.Pointer[configPaths]

// userPaths returns rules.UserConfigPath and rules.TrustStorePath (err:
// the first one's error) for the current environment.
func userPaths() *configPaths {
	xdg := os.Getenv("XDG_CONFIG_HOME")
	home, _ := os.UserHomeDir()
	if p := lastPaths.Load(); p != nil && p.xdg == xdg && p.home == home {
		return p
	}
	p := &configPaths{xdg: xdg, home: home}
	if p.user, p.err = rules.UserConfigPath(); p.err == nil {
		p.trust, p.err = rules.TrustStorePath()
	}
	lastPaths.Store(p)
	return p
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// configDeps lists what loadConfigsDeps read: files (present or not) and
// policy directories (walked as [rules.Config.Digest] walks them), and
// the project file it found. A nil *configDeps records nothing.
type configDeps struct {
	files, dirs   []string
	walked        bool // FindProjectConfig ran
	proj, projErr string
}

func (d *configDeps) addFile(path string) {
	if d != nil {
		d.files = append(d.files, path)
	}
}

func (d *configDeps) addConfig(path string, c *rules.Config) {
	if d == nil {
		return
	}
	d.files = append(d.files, path)
	if c != nil {
		d.files = append(d.files, c.RuleFiles...)
		d.dirs = append(d.dirs, c.Policies...)
	}
}

func (d *configDeps) foundProject(path string, err error) {
	if d != nil {
		d.walked, d.proj, d.projErr = true, path, errText(err)
	}
}

func (d *configDeps) same(o *configDeps) bool {
	return slices.Equal(d.files, o.files) && slices.Equal(d.dirs, o.dirs) &&
		d.walked == o.walked && d.proj == o.proj && d.projErr == o.projErr
}

// projFound reports whether the project found differs from the key's
// (the tree changed between the two walks).
func (d *configDeps) projFound(k foundKey) bool {
	if k.noDir {
		return d.walked
	}
	return !d.walked || d.proj != k.proj || d.projErr != k.projEr
}

// sigs stats every file and directory in d. It fails (false) when one
// cannot be stat'ed, changed within racyWindow of now, or stat gives no
// identity on this system.
func (d *configDeps) sigs(now time.Time) ([]fileSig, bool) {
	var out []fileSig
	add := func(path string) bool {
		s, ok := statSig(path)
		if !ok || (s.exists && (now.UnixNano()-s.ctime < int64(racyWindow) || now.UnixNano()-s.mtime < int64(racyWindow))) {
			return false
		}
		out = append(out, s)
		return true
	}
	for _, f := range d.files {
		if !add(f) {
			return nil, false
		}
	}
	for _, dir := range d.dirs {
		err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || strings.HasSuffix(p, ".rego") {
				if !add(p) {
					return errors.New("not cacheable")
				}
			}
			return nil
		})
		if err != nil {
			return nil, false
		}
	}
	return out, true
}

// fileSig is what stat says of a file: two equal signatures taken at
// different times mean the same contents, given racyWindow.
type fileSig struct {
	path   string
	exists bool
	//lint:ignore U1000 set where stat identifies a file (configcache_linux.go); empty elsewhere
	id           fileID // the platform's identity of the file (configcache_*.go)
	mtime, ctime int64  // unix nanoseconds
}

// sigsHold reports whether every file still has its signature.
func sigsHold(sigs []fileSig) bool {
	for _, s := range sigs {
		now, ok := statSig(s.path)
		if !ok || now != s {
			return false
		}
	}
	return true
}
