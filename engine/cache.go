package engine

import (
	"hash/maphash"
	"strconv"
	"strings"
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
			if !e.hits.allowKnown { // the same input, now with its allow layer
				c.m[h][i].hits = hits
			}
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

// verdictCache remembers whole verdicts of EvaluateText by the text and
// everything the parser and the grants add to it (shell, cwd, workspace,
// home, grants): the parser is a pure function of those, and the policy
// is fixed for the engine's life, so a hit is exact. Verdicts that ended
// in an evaluation error (a cancelled context, a failing policy) are never
// stored.
//
// It is split into shards by the key's hash, each with its own lock and
// its share of the bounds: a server grading on every core looks a
// verdict up and stores it for each request, and under one lock those
// requests queued for it (serve with no cache hit, 16 clients: 0.64 s of
// waiting in 6 s).
type verdictCache struct {
	seed   maphash.Seed
	shards [verdictShards]verdictShard
}

type verdictShard struct {
	mu    sync.Mutex
	m     map[string]Verdict
	max   int
	bytes int      // of the keys, bounded by maxCacheBytes / verdictShards
	_     [64]byte // a shard's lock and its neighbour's are not on one cache line
}

// verdictShards is how many shards a verdictCache has.
const verdictShards = 16

// Long commands are graded every time: agents' commands are short, and a
// cache of a few thousand 256 KiB commands would hold a gigabyte.
const (
	maxCachedText = 4 << 10  // bytes of a command whose verdict and segments the caches keep
	maxCacheBytes = 16 << 20 // bytes of verdict-cache keys before it starts over
)

func newVerdictCache(size int) *verdictCache {
	if size <= 0 {
		return nil
	}
	c := &verdictCache{seed: maphash.MakeSeed()}
	per := max(1, (size+verdictShards-1)/verdictShards)
	for i := range c.shards {
		c.shards[i] = verdictShard{m: map[string]Verdict{}, max: per}
	}
	return c
}

func (c *verdictCache) shard(key string) *verdictShard {
	return &c.shards[maphash.String(c.seed, key)%verdictShards]
}

// verdictKey joins the fields, each prefixed by its length so no two
// different inputs share a key.
func verdictKey(text string, c *evalConfig) string {
	var b strings.Builder
	field := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	for _, s := range []string{text, c.shell, c.cwd, c.workspace, c.home} {
		field(s)
	}
	field(strconv.Itoa(len(c.grants)))
	for _, g := range c.grants {
		field(strconv.Itoa(len(g.Prefix)))
		for _, p := range g.Prefix {
			field(p)
		}
		field(strconv.Itoa(len(g.Rules)))
		for _, r := range g.Rules {
			field(r)
		}
	}
	return b.String()
}

func (c *verdictCache) get(key string) (Verdict, bool) {
	if c == nil {
		return Verdict{}, false
	}
	sh := c.shard(key)
	sh.mu.Lock()
	v, ok := sh.m[key]
	sh.mu.Unlock()
	if ok {
		v.Reasons = append([]Reason(nil), v.Reasons...) // the caller may change its copy
	}
	return v, ok
}

func (c *verdictCache) put(key string, v Verdict) {
	if c == nil {
		return
	}
	v.Reasons = append([]Reason(nil), v.Reasons...)
	sh := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(sh.m) >= sh.max || sh.bytes+len(key) > maxCacheBytes/verdictShards {
		sh.m, sh.bytes = map[string]Verdict{}, 0 // bounded, like hitCache
	}
	if _, dup := sh.m[key]; !dup {
		sh.bytes += len(key)
	}
	sh.m[key] = v
}
