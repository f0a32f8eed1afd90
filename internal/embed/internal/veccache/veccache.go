// Package veccache keeps the vectors of recent texts for the local sentence
// encoders (uselite, bge), keyed by the SHA-256 of what was embedded, so a
// text that comes again (a question asked in every round of a recall, a
// reindex of the same message) costs no forward pass.
package veccache

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// Cache maps text hashes to vectors, dropping the least recently used. It
// is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	size  int
	order *list.List // of *entry, most recent first
	items map[[32]byte]*list.Element
}

type entry struct {
	key [32]byte
	vec []float32
}

// New returns a Cache of size vectors (size > 0).
func New(size int) *Cache {
	return &Cache{size: size, order: list.New(), items: make(map[[32]byte]*list.Element, size)}
}

// Key is the cache key of text.
func Key(text string) [32]byte { return sha256.Sum256([]byte(text)) }

// Get copies the vector cached under key into dst and reports whether
// there was one. A nil Cache has none.
func (c *Cache) Get(key [32]byte, dst []float32) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return false
	}
	c.order.MoveToFront(el)
	copy(dst, el.Value.(*entry).vec)
	return true
}

// Put caches a copy of vec under key. A nil Cache keeps nothing.
func (c *Cache) Put(key [32]byte, vec []float32) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return
	}
	var ent *entry
	if c.order.Len() >= c.size {
		// Reuse the evicted entry's vector.
		el := c.order.Back()
		ent = el.Value.(*entry)
		delete(c.items, ent.key)
		c.order.Remove(el)
	} else {
		ent = &entry{vec: make([]float32, len(vec))}
	}
	ent.key = key
	copy(ent.vec, vec)
	c.items[key] = c.order.PushFront(ent)
}
