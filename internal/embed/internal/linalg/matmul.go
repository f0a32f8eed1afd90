package linalg

import "sync"

// Panel is the width of a weight panel: Pack stores a K×N matrix as N/Panel
// panels of K×Panel values, so the kernels read weights sequentially. N must
// be a multiple of Panel.
const Panel = 16

const nr = Panel

// Matrix is a K×N float32 weight matrix packed in panels of nr columns.
type Matrix struct {
	k, n int
	p    []float32
}

// K returns the number of rows of m (the input width).
func (m Matrix) K() int { return m.k }

// N returns the number of columns of m (the output width).
func (m Matrix) N() int { return m.n }

// Pack packs the row-major K×N matrix w; N must be a multiple of nr.
func Pack(w []float32, k, n int) Matrix {
	var m Matrix
	m.Repack(w, k, n)
	return m
}

// Repack packs w into m as Pack does, reusing m's storage when it is large
// enough.
func (m *Matrix) Repack(w []float32, k, n int) {
	if cap(m.p) < k*n {
		m.p = make([]float32, k*n)
	}
	m.k, m.n, m.p = k, n, m.p[:k*n]
	for j0 := 0; j0 < n; j0 += nr {
		panel := m.p[j0*k : (j0+nr)*k]
		for kk := 0; kk < k; kk++ {
			copy(panel[kk*nr:kk*nr+nr], w[kk*n+j0:kk*n+j0+nr])
		}
	}
}

// MatMul sets out (rows×m.n, row-major) to a (rows×m.k) times m plus bias
// (if not nil), then applies relu if asked. a and out must not overlap.
func MatMul(out, a []float32, rows int, m Matrix, bias []float32, relu bool) {
	if rows == 0 {
		return
	}
	_ = a[rows*m.k-1]
	_ = out[rows*m.n-1]
	matmulCols(out, a, rows, m, bias, relu, 0, m.n)
}

// MatMulParallel is MatMul split over up to workers goroutines, each
// computing a contiguous block of whole weight panels (columns), so each
// reads its share of the weights only. It returns when all are done.
// Small products run on the calling goroutine alone.
func MatMulParallel(out, a []float32, rows int, m Matrix, bias []float32, relu bool, workers int) {
	if rows == 0 {
		return
	}
	_ = a[rows*m.k-1]
	_ = out[rows*m.n-1]
	panels := m.n / nr
	workers = min(workers, panels, rows*m.k*m.n/minParallelWork)
	if workers <= 1 {
		matmulCols(out, a, rows, m, bias, relu, 0, m.n)
		return
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		c0, c1 := w*panels/workers*nr, (w+1)*panels/workers*nr
		wg.Go(func() { matmulCols(out, a, rows, m, bias, relu, c0, c1) })
	}
	matmulCols(out, a, rows, m, bias, relu, 0, panels/workers*nr)
	wg.Wait()
}

// minParallelWork is the number of multiply-adds below which a goroutine
// costs more than it saves.
const minParallelWork = 1 << 18

// matmulCols computes the columns [c0, c1) of out (multiples of nr).
func matmulCols(out, a []float32, rows int, m Matrix, bias []float32, relu bool, c0, c1 int) {
	if useSIMD {
		matmulSIMD(out, a, rows, m, bias, relu, c0, c1)
		return
	}
	matmulScalar(out, a, rows, m, c0, c1)
	epilogue(out, rows, m.n, bias, relu, c0, c1)
}

// epilogue adds bias (if not nil) to the columns [c0, c1) of each row of
// out and applies relu if asked.
func epilogue(out []float32, rows, n int, bias []float32, relu bool, c0, c1 int) {
	if bias == nil && !relu {
		return
	}
	for i := range rows {
		row := out[i*n+c0 : i*n+c1]
		if bias != nil {
			for j, b := range bias[c0:c1] {
				row[j] += b
			}
		}
		if relu {
			for j, x := range row {
				row[j] = max(x, 0)
			}
		}
	}
}

// matmulScalar is the portable kernel: blocks of 4 rows × 4 columns kept in
// registers while k runs.
func matmulScalar(out, a []float32, rows int, m Matrix, c0, c1 int) {
	k, n := m.k, m.n
	i := 0
	for ; i+4 <= rows; i += 4 {
		a0 := a[i*k : i*k+k]
		a1 := a[(i+1)*k : (i+1)*k+k]
		a2 := a[(i+2)*k : (i+2)*k+k]
		a3 := a[(i+3)*k : (i+3)*k+k]
		for j0 := c0; j0 < c1; j0 += nr {
			panel := m.p[j0*k : (j0+nr)*k]
			for c := 0; c < nr; c += 4 {
				var c00, c01, c02, c03 float32
				var c10, c11, c12, c13 float32
				var c20, c21, c22, c23 float32
				var c30, c31, c32, c33 float32
				for kk := range a0 {
					b := panel[kk*nr+c : kk*nr+c+4 : kk*nr+c+4]
					b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
					x := a0[kk]
					c00 += x * b0
					c01 += x * b1
					c02 += x * b2
					c03 += x * b3
					x = a1[kk]
					c10 += x * b0
					c11 += x * b1
					c12 += x * b2
					c13 += x * b3
					x = a2[kk]
					c20 += x * b0
					c21 += x * b1
					c22 += x * b2
					c23 += x * b3
					x = a3[kk]
					c30 += x * b0
					c31 += x * b1
					c32 += x * b2
					c33 += x * b3
				}
				j := j0 + c
				store4(out[i*n+j:], c00, c01, c02, c03)
				store4(out[(i+1)*n+j:], c10, c11, c12, c13)
				store4(out[(i+2)*n+j:], c20, c21, c22, c23)
				store4(out[(i+3)*n+j:], c30, c31, c32, c33)
			}
		}
	}
	for ; i < rows; i++ {
		a0 := a[i*k : i*k+k]
		for j0 := c0; j0 < c1; j0 += nr {
			panel := m.p[j0*k : (j0+nr)*k]
			for c := 0; c < nr; c += 4 {
				var c0, c1, c2, c3 float32
				for kk, x := range a0 {
					b := panel[kk*nr+c : kk*nr+c+4 : kk*nr+c+4]
					c0 += x * b[0]
					c1 += x * b[1]
					c2 += x * b[2]
					c3 += x * b[3]
				}
				store4(out[i*n+j0+c:], c0, c1, c2, c3)
			}
		}
	}
}

func store4(dst []float32, c0, c1, c2, c3 float32) {
	dst = dst[:4:4]
	dst[0], dst[1], dst[2], dst[3] = c0, c1, c2, c3
}

func dotScalar(a, b []float32) float32 {
	b = b[:len(a)]
	var s float32
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

func axpyScalar(dst, x []float32, alpha float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] += alpha * v
	}
}
