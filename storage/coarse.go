package storage

import "math/rand/v2"

// coarseBits is the length of the binary code kept beside each vector. Sign
// random projections preserve angles (Charikar's SimHash), so the Hamming
// distance between codes ranks candidates cheaply before exact rescoring.
const coarseBits = 512

// projector maps a vector to its sign-random-projection code. The matrix
// comes from a fixed seed, so codes are the same in every process.
type projector struct {
	dim  int
	bits int
	cols []float32 // dim columns of bits entries: cols[j*bits+b] = R[b][j]
}

func newProjector(dim, bits int) *projector {
	r := rand.New(rand.NewPCG(0x7265_6361_6c6c, 0x64_5f62_6974))
	cols := make([]float32, dim*bits)
	for i := range cols {
		cols[i] = float32(r.NormFloat64())
	}
	return &projector{dim: dim, bits: bits, cols: cols}
}

// code returns the packed sign bits of R·v (bit b of byte b/8, low bit first).
func (p *projector) code(v []float32) []byte {
	acc := make([]float32, p.bits)
	for j, x := range v {
		if x == 0 {
			continue // sparse vectors (n-gram hashing) touch few columns
		}
		col := p.cols[j*p.bits : (j+1)*p.bits]
		for b, r := range col {
			acc[b] += x * r
		}
	}
	out := make([]byte, p.bits/8)
	for b, a := range acc {
		if a > 0 {
			out[b/8] |= 1 << (b % 8)
		}
	}
	return out
}
