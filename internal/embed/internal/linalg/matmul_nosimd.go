//go:build !(goexperiment.simd && amd64)

package linalg

// useSIMD is false: this build has no SIMD kernel (build with
// GOEXPERIMENT=simd on amd64 for the AVX2 one, as the Makefile does).
const useSIMD = false

// Kernel reports which matrix kernel runs: "avx2-fma" or "scalar".
func Kernel() string { return "scalar" }

func matmulSIMD(out, a []float32, rows int, m Matrix, bias []float32, relu bool, c0, c1 int) {
	matmulScalar(out, a, rows, m, c0, c1)
	epilogue(out, rows, m.n, bias, relu, c0, c1)
}

func Dot(a, b []float32) float32 { return dotScalar(a, b) }

func Axpy(dst, x []float32, alpha float32) { axpyScalar(dst, x, alpha) }

func qmatmulSIMD(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32, c0, c1 int) {
	qmatmulScalar(out, a, rows, m, scale, bias, c0, c1)
}

func geluSIMD(x []float32) int { return 0 }

func expShiftSIMD(x []float32, m float32) (int, float32) { return 0, 0 }

func minMaxSIMD(x []float32) (int, float32, float32) { return 0, x[0], x[0] }

func quantizeSIMD(dst []int16, x []float32, scale, zp float32) int { return 0 }

func divSIMD(x []float32, d float32) int { return 0 }

func standardizeSIMD(x []float32, mean, std float64, w, b []float32) int { return 0 }
