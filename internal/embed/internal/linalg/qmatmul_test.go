package linalg

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func randQ(r *rand.Rand, rows, k, n int) (a []int16, w []int8) {
	a = make([]int16, rows*k)
	for i := range a {
		a[i] = int16(r.IntN(511) - 255)
	}
	w = make([]int8, k*n)
	for i := range w {
		w[i] = int8(r.IntN(256) - 128)
	}
	return a, w
}

// TestQMatMul compares both integer kernels (the SIMD one is the scalar
// one in a build without GOEXPERIMENT=simd), whole and split by columns,
// with a naive triple loop, for row counts that exercise the 3-row blocks
// and the remainder, at the extremes of the value ranges too.
func TestQMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	kernels := map[string]func(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32){
		"scalar": func(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32) {
			qmatmulScalar(out, a, rows, m, scale, bias, 0, m.n)
		},
		"simd": func(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32) {
			qmatmulSIMD(out, a, rows, m, scale, bias, 0, m.n)
		},
		"columns": func(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32) {
			qmatmulCols(out, a, rows, m, scale, bias, 0, nr)
			qmatmulCols(out, a, rows, m, scale, bias, nr, m.n)
		},
		"qmatmul": QMatMul,
	}
	for name, kern := range kernels {
		for _, rows := range []int{1, 2, 3, 4, 5, 7} {
			for _, extreme := range []bool{false, true} {
				k, n := 40, 32
				a, w := randQ(r, rows, k, n)
				if extreme {
					for i := range a {
						a[i] = -255
					}
					for i := range w {
						w[i] = -128
					}
				}
				scale, bias := randSlice(r, n), randSlice(r, n)
				got := make([]float32, rows*n)
				kern(got, a, rows, PackQ(w, k, n), scale, bias)
				for i := range rows {
					for j := range n {
						var sum int32
						for kk := range k {
							sum += int32(a[i*k+kk]) * int32(w[kk*n+j])
						}
						if want := float32(sum)*scale[j] + bias[j]; got[i*n+j] != want {
							t.Fatalf("%s rows %d extreme %v: out[%d][%d] = %v, want %v", name, rows, extreme, i, j, got[i*n+j], want)
						}
					}
				}
			}
		}
	}
}

// TestQMatMulParallel checks that a product large enough to be split over
// goroutines equals the single-goroutine one.
func TestQMatMulParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	rows, k, n := 5, 512, 272 // 17 panels: uneven blocks
	a, w := randQ(r, rows, k, n)
	m, scale, bias := PackQ(w, k, n), randSlice(r, n), randSlice(r, n)
	want := make([]float32, rows*n)
	QMatMul(want, a, rows, m, scale, bias)
	for _, workers := range []int{1, 2, 3, 64} {
		got := make([]float32, rows*n)
		QMatMulParallel(got, a, rows, m, scale, bias, workers)
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: result differs from QMatMul", workers)
		}
	}
}

func BenchmarkQMatmul(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	rows, k, n := 36, 512, 1536
	a, w := randQ(r, rows, k, n)
	m, scale, bias := PackQ(w, k, n), randSlice(r, n), randSlice(r, n)
	out := make([]float32, rows*n)
	b.SetBytes(int64(rows * k * n)) // "bytes" = multiply-adds
	for b.Loop() {
		QMatMul(out, a, rows, m, scale, bias)
	}
}
