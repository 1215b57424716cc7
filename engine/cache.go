package engine

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// hitCache remembers the layer hits of segment inputs already evaluated.
// It is sound because the policy is deterministic: capabilities leave out
// time, randomness and network builtins, the data is fixed at compile time,
// and the key is the whole input (segment facts, cwd and workspace classes,
// shape, grants). One cache belongs to one compiled policy.
type hitCache struct {
	mu  sync.Mutex
	m   map[int][]cacheEntry
	n   int
	max int
}

type cacheEntry struct {
	key  ast.Value
	hits layerHits
}

func newHitCache(max int) *hitCache {
	if max <= 0 {
		return nil
	}
	return &hitCache{m: map[int][]cacheEntry{}, max: max}
}

func (c *hitCache) get(key ast.Value) (layerHits, bool) {
	if c == nil {
		return layerHits{}, false
	}
	h := key.Hash()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.m[h] {
		if e.key.Compare(key) == 0 {
			return e.hits, true
		}
	}
	return layerHits{}, false
}

func (c *hitCache) put(key ast.Value, hits layerHits) {
	if c == nil {
		return
	}
	h := key.Hash()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.m[h] {
		if e.key.Compare(key) == 0 {
			c.m[h][i].hits = hits // the same input, now with its allow layer
			return
		}
	}
	if c.n >= c.max {
		// Simple and bounded: start over when full.
		c.m, c.n = map[int][]cacheEntry{}, 0
	}
	c.m[h] = append(c.m[h], cacheEntry{key: key, hits: hits})
	c.n++
}
