package linalg

import "sync"

// QMatrix is a K×N int8 weight matrix packed for QMatMul: in panels of nr
// columns, as Matrix, and within a panel the rows two by two, the two
// values of each column side by side (w[2p][j], w[2p+1][j]), so that the
// AVX2 kernel multiplies and adds pairs of int16 in one instruction
// (VPMADDWD). The values are stored widened to int16, twice the bytes of
// the int8 weights, so that the kernel's inner loop only loads them. K is
// even.
type QMatrix struct {
	k, n int
	p    []int16
}

// K returns the number of rows of m (the input width).
func (m QMatrix) K() int { return m.k }

// N returns the number of columns of m (the output width).
func (m QMatrix) N() int { return m.n }

// PackQ packs the row-major K×N matrix w; K must be even and N a multiple
// of Panel.
func PackQ(w []int8, k, n int) QMatrix {
	if k%2 != 0 || n%nr != 0 {
		panic("linalg: PackQ needs an even K and N a multiple of Panel")
	}
	m := QMatrix{k: k, n: n, p: make([]int16, k*n)}
	for j0 := 0; j0 < n; j0 += nr {
		panel := m.p[j0*k : (j0+nr)*k]
		for p := 0; p < k/2; p++ {
			for j := range nr {
				panel[p*2*nr+2*j] = int16(w[2*p*n+j0+j])
				panel[p*2*nr+2*j+1] = int16(w[(2*p+1)*n+j0+j])
			}
		}
	}
	return m
}

// QMatMul sets out (rows×m.n, row-major) to the integer product of a
// (rows×m.k) and m, each column j then multiplied by scale[j] and added
// bias[j] in float32. The products are exact: every |a| must be at most
// 255 (a quantized byte less its zero point), so that sums stay within
// int32 for any K up to 65536. a and out must not overlap.
func QMatMul(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32) {
	QMatMulParallel(out, a, rows, m, scale, bias, 1)
}

// QMatMulParallel is QMatMul split over up to workers goroutines by
// blocks of whole panels, as MatMulParallel.
func QMatMulParallel(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32, workers int) {
	if rows == 0 {
		return
	}
	_ = a[rows*m.k-1]
	_ = out[rows*m.n-1]
	_, _ = scale[m.n-1], bias[m.n-1]
	panels := m.n / nr
	workers = min(workers, panels, rows*m.k*m.n/minParallelWork)
	if workers <= 1 {
		qmatmulCols(out, a, rows, m, scale, bias, 0, m.n)
		return
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		c0, c1 := w*panels/workers*nr, (w+1)*panels/workers*nr
		wg.Go(func() { qmatmulCols(out, a, rows, m, scale, bias, c0, c1) })
	}
	qmatmulCols(out, a, rows, m, scale, bias, 0, panels/workers*nr)
	wg.Wait()
}

// qmatmulCols computes the columns [c0, c1) of out (multiples of nr).
func qmatmulCols(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32, c0, c1 int) {
	if useSIMD {
		qmatmulSIMD(out, a, rows, m, scale, bias, c0, c1)
		return
	}
	qmatmulScalar(out, a, rows, m, scale, bias, c0, c1)
}

// qmatmulScalar is the portable integer kernel: one row × 4 columns kept
// in registers while k runs.
func qmatmulScalar(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32, c0, c1 int) {
	k, n := m.k, m.n
	for i := range rows {
		ar := a[i*k : i*k+k]
		for j0 := c0; j0 < c1; j0 += nr {
			panel := m.p[j0*k : (j0+nr)*k]
			for c := 0; c < nr; c += 4 {
				var s0, s1, s2, s3 int32
				for p := 0; p < k/2; p++ {
					x0, x1 := int32(ar[2*p]), int32(ar[2*p+1])
					w := panel[p*2*nr+2*c : p*2*nr+2*c+8 : p*2*nr+2*c+8]
					s0 += x0*int32(w[0]) + x1*int32(w[1])
					s1 += x0*int32(w[2]) + x1*int32(w[3])
					s2 += x0*int32(w[4]) + x1*int32(w[5])
					s3 += x0*int32(w[6]) + x1*int32(w[7])
				}
				j := j0 + c
				o := out[i*n+j : i*n+j+4 : i*n+j+4]
				o[0] = float32(s0)*scale[j] + bias[j]
				o[1] = float32(s1)*scale[j+1] + bias[j+1]
				o[2] = float32(s2)*scale[j+2] + bias[j+2]
				o[3] = float32(s3)*scale[j+3] + bias[j+3]
			}
		}
	}
}
