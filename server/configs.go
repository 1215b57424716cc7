package server

import (
	"container/list"
	"context"
	"sync"

	"github.com/rivumi/rivumi/engine"
)

// ConfigFunc finds the configuration in force for a command that runs in
// dir (the request's cwd, else its workspace; "" when the request names
// neither): it returns the configuration's identity, a digest of
// everything it is made of (the files, their trust, the packs they name),
// and the function that compiles its engine. It runs on every request, so
// it must be cheap: stat and read a few small files, never compile. An
// error fails the request closed (deny).
type ConfigFunc func(ctx context.Context, dir string) (id string, load LoadFunc, err error)

// DefaultEngines is how many compiled engines a server with [WithConfigs]
// keeps.
const DefaultEngines = 16

// WithConfigs has the server grade each request with the engine of the
// configuration found from the request's own cwd (or workspace), never
// from the server's: one compiled engine per configuration identity, up to
// size of them (the least recently used goes first; size <= 0:
// [DefaultEngines]). find runs on every request, so edits to the
// configuration, `rivumi trust` and its revocation count from the next
// request on, without a reload. [Server.Reload] drops every engine.
func WithConfigs(find ConfigFunc, size int) Option {
	if size <= 0 {
		size = DefaultEngines
	}
	return func(s *Server) { s.find, s.engines = find, newEngineLRU(size) }
}

// engineFor returns the engine that grades r.
func (s *Server) engineFor(ctx context.Context, r *Request) (*engine.Engine, error) {
	if s.find == nil {
		return s.eng.Load(), nil
	}
	dir := r.Cwd
	if dir == "" {
		dir = r.Workspace
	}
	id, load, err := s.find(ctx, dir)
	if err != nil {
		return nil, err
	}
	return s.engines.get(ctx, id, load)
}

// engineLRU holds compiled engines by configuration identity. Concurrent
// requests of one identity wait for one compilation.
type engineLRU struct {
	mu  sync.Mutex
	max int
	m   map[string]*list.Element // of *engineSlot
	l   *list.List               // most recently used first
}

type engineSlot struct {
	id    string
	ready chan struct{}
	e     *engine.Engine
	err   error
}

func newEngineLRU(max int) *engineLRU {
	return &engineLRU{max: max, m: map[string]*list.Element{}, l: list.New()}
}

func (c *engineLRU) get(ctx context.Context, id string, load LoadFunc) (*engine.Engine, error) {
	c.mu.Lock()
	el, ok := c.m[id]
	if ok {
		c.l.MoveToFront(el)
		c.mu.Unlock()
		slot := el.Value.(*engineSlot)
		select {
		case <-slot.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return slot.e, slot.err
	}
	slot := &engineSlot{id: id, ready: make(chan struct{})}
	el = c.l.PushFront(slot)
	c.m[id] = el
	for c.l.Len() > c.max {
		old := c.l.Back()
		c.l.Remove(old)
		delete(c.m, old.Value.(*engineSlot).id)
	}
	c.mu.Unlock()
	// The compilation outlives a caller that gives up: others may wait.
	slot.e, slot.err = load(context.WithoutCancel(ctx))
	close(slot.ready)
	if slot.err != nil {
		c.mu.Lock()
		if c.m[id] == el { // a failed load is tried again by the next request
			c.l.Remove(el)
			delete(c.m, id)
		}
		c.mu.Unlock()
	}
	return slot.e, slot.err
}

// reset drops every engine.
func (c *engineLRU) reset() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.m, c.l = map[string]*list.Element{}, list.New()
	c.mu.Unlock()
}

// Len returns how many engines are kept (for tests and metrics).
func (c *engineLRU) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.l.Len()
}
