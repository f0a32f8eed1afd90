package linalg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

// TestMatmul compares both kernels (the SIMD one is the scalar one in a
// build without GOEXPERIMENT=simd) and matmul's bias and relu epilogue with
// a naive triple loop, for row counts that exercise the 4-row blocks and the
// remainder.
func TestMatmul(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type kernel func(out, a []float32, rows int, m Matrix, bias []float32, relu bool)
	bare := func(k func(out, a []float32, rows int, m Matrix, c0, c1 int)) kernel {
		return func(out, a []float32, rows int, m Matrix, bias []float32, relu bool) {
			k(out, a, rows, m, 0, m.n)
			for i := range out {
				out[i] += bias[i%m.n]
				if relu {
					out[i] = max(out[i], 0)
				}
			}
		}
	}
	simd := func(out, a []float32, rows int, m Matrix, bias []float32, relu bool) {
		matmulSIMD(out, a, rows, m, bias, relu, 0, m.n)
	}
	// columns computes the two panels apart, as MatMulParallel's workers do.
	columns := func(out, a []float32, rows int, m Matrix, bias []float32, relu bool) {
		matmulCols(out, a, rows, m, bias, relu, 0, nr)
		matmulCols(out, a, rows, m, bias, relu, nr, m.n)
	}
	kernels := map[string]kernel{"scalar": bare(matmulScalar), "simd": simd, "matmul": MatMul, "columns": columns}
	for name, kern := range kernels {
		for _, rows := range []int{1, 3, 4, 5, 9} {
			k, n := 24, 32
			a, w, bias := randSlice(r, rows*k), randSlice(r, k*n), randSlice(r, n)
			for _, relu := range []bool{false, true} {
				got := make([]float32, rows*n)
				kern(got, a, rows, Pack(w, k, n), bias, relu)
				for i := range rows {
					for j := range n {
						var want float64
						for kk := range k {
							want += float64(a[i*k+kk]) * float64(w[kk*n+j])
						}
						want += float64(bias[j])
						if relu {
							want = max(want, 0)
						}
						if d := math.Abs(want - float64(got[i*n+j])); d > 1e-5 {
							t.Fatalf("%s rows %d relu %v: out[%d][%d] = %v, want %v", name, rows, relu, i, j, got[i*n+j], want)
						}
					}
				}
			}
		}
	}
}

// TestMatMulParallel checks that a product large enough to be split over
// goroutines equals the single-goroutine one.
func TestMatMulParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rows, k, n := 5, 512, 272 // 17 panels: uneven blocks
	a, w, bias := randSlice(r, rows*k), Pack(randSlice(r, k*n), k, n), randSlice(r, n)
	want := make([]float32, rows*n)
	MatMul(want, a, rows, w, bias, true)
	for _, workers := range []int{1, 2, 3, 64} {
		got := make([]float32, rows*n)
		MatMulParallel(got, a, rows, w, bias, true, workers)
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: result differs from MatMul", workers)
		}
	}
}

func BenchmarkMatmul(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	rows, k, n := 36, 512, 1536
	a, w := randSlice(r, rows*k), Pack(randSlice(r, k*n), k, n)
	out := make([]float32, rows*n)
	b.SetBytes(int64(rows * k * n)) // "bytes" = multiply-adds
	for b.Loop() {
		MatMul(out, a, rows, w, nil, false)
	}
}

// TestDotAxpy checks the attention helpers on SIMD-sized and odd lengths.
func TestDotAxpy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{8, 64, 128, 7} {
		a, b := randSlice(r, n), randSlice(r, n)
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		if got := Dot(a, b); math.Abs(float64(got)-want) > 1e-5 {
			t.Errorf("dot n=%d = %v, want %v", n, got, want)
		}
		dst := append([]float32(nil), a...)
		Axpy(dst, b, 0.5)
		for i := range dst {
			if w := a[i] + 0.5*b[i]; math.Abs(float64(dst[i]-w)) > 1e-6 {
				t.Fatalf("axpy n=%d [%d] = %v, want %v", n, i, dst[i], w)
			}
		}
	}
}
