package veccache

import "testing"

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c := New(2)
	v := func(x float32) []float32 { return []float32{x} }
	c.Put([32]byte{1}, v(1))
	c.Put([32]byte{2}, v(2))
	dst := make([]float32, 1)
	c.Get([32]byte{1}, dst) // 1 is now the most recent
	c.Put([32]byte{3}, v(3))
	if c.Get([32]byte{2}, dst) {
		t.Error("least recently used entry kept")
	}
	for _, k := range []byte{1, 3} {
		if !c.Get([32]byte{k}, dst) || dst[0] != float32(k) {
			t.Errorf("entry %d: got %v", k, dst)
		}
	}
}

func TestNilCacheKeepsNothing(t *testing.T) {
	var c *Cache
	c.Put(Key("a"), []float32{1})
	if c.Get(Key("a"), make([]float32, 1)) {
		t.Error("nil cache returned a vector")
	}
}
