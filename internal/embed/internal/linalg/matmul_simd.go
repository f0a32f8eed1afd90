//go:build goexperiment.simd && amd64

package linalg

import (
	"simd/archsimd"
	"unsafe"
)

// useSIMD selects the AVX2 kernel when the CPU has AVX2 and FMA. It is set
// once at start-up and never changes.
var useSIMD = archsimd.X86.AVX2() && archsimd.X86.FMA()

// Kernel reports which matrix kernel runs: "avx2-fma" or "scalar".
func Kernel() string {
	if useSIMD {
		return "avx2-fma"
	}
	return "scalar"
}

// Every AVX2 function here ends with archsimd.ClearAVXUpperBits
// (VZEROUPPER): Go's compiler does not issue it, and legacy SSE code run
// later with the upper YMM halves dirty (math.Exp's assembly, float64
// arithmetic) pays a transition penalty on each instruction. Without it
// bge's forward pass spent over half its time in math.Exp, about 300 ns a
// call instead of 15.

// matmulSIMD is the AVX2 kernel. It walks the weight panels in the outer
// loop, so each panel (K×16 values) is read from memory once and stays in
// cache while every row passes over it; inside, blocks of 4 rows × 16
// columns (eight 8-lane accumulators, started from the bias) run along k,
// one fused multiply-add per lane; relu is applied on the way out.
// It computes the columns [c0, c1) of out, both multiples of nr. The
// weights are read through unsafe pointers (MatMul checked the lengths),
// which keeps the inner loop free of bounds checks.
func matmulSIMD(out, a []float32, rows int, m Matrix, bias []float32, relu bool, c0, c1 int) {
	defer archsimd.ClearAVXUpperBits()
	var zero archsimd.Float32x8
	bias16 := func(j0 int) (archsimd.Float32x8, archsimd.Float32x8) {
		if bias == nil {
			return zero, zero
		}
		return archsimd.LoadFloat32x8Slice(bias[j0:]), archsimd.LoadFloat32x8Slice(bias[j0+8:])
	}
	store := func(v archsimd.Float32x8, dst []float32) {
		if relu {
			v = v.Max(zero)
		}
		v.StoreSlice(dst)
	}
	k, n := m.k, m.n
	for j0 := c0; j0 < c1; j0 += nr {
		panel := m.p[j0*k : (j0+nr)*k]
		pp := unsafe.Pointer(unsafe.SliceData(panel))
		i := 0
		for ; i+4 <= rows; i += 4 {
			a0 := a[i*k : i*k+k]
			a1 := a[(i+1)*k : (i+1)*k+k][:len(a0)]
			a2 := a[(i+2)*k : (i+2)*k+k][:len(a0)]
			a3 := a[(i+3)*k : (i+3)*k+k][:len(a0)]
			c00, c01 := bias16(j0)
			c10, c11, c20, c21, c30, c31 := c00, c01, c00, c01, c00, c01
			for kk := range a0 {
				b0 := archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pp, kk*nr*4)))
				b1 := archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pp, kk*nr*4+32)))
				x := archsimd.BroadcastFloat32x8(a0[kk])
				c00 = b0.MulAdd(x, c00)
				c01 = b1.MulAdd(x, c01)
				x = archsimd.BroadcastFloat32x8(a1[kk])
				c10 = b0.MulAdd(x, c10)
				c11 = b1.MulAdd(x, c11)
				x = archsimd.BroadcastFloat32x8(a2[kk])
				c20 = b0.MulAdd(x, c20)
				c21 = b1.MulAdd(x, c21)
				x = archsimd.BroadcastFloat32x8(a3[kk])
				c30 = b0.MulAdd(x, c30)
				c31 = b1.MulAdd(x, c31)
			}
			store(c00, out[i*n+j0:])
			store(c01, out[i*n+j0+8:])
			store(c10, out[(i+1)*n+j0:])
			store(c11, out[(i+1)*n+j0+8:])
			store(c20, out[(i+2)*n+j0:])
			store(c21, out[(i+2)*n+j0+8:])
			store(c30, out[(i+3)*n+j0:])
			store(c31, out[(i+3)*n+j0+8:])
		}
		for ; i < rows; i++ {
			a0 := a[i*k : i*k+k]
			c0, c1 := bias16(j0)
			for kk, v := range a0 {
				x := archsimd.BroadcastFloat32x8(v)
				c0 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pp, kk*nr*4))).MulAdd(x, c0)
				c1 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pp, kk*nr*4+32))).MulAdd(x, c1)
			}
			store(c0, out[i*n+j0:])
			store(c1, out[i*n+j0+8:])
		}
	}
}

// Dot returns the dot product of a and b (equal lengths).
func Dot(a, b []float32) float32 {
	if !useSIMD || len(a)%8 != 0 {
		return dotScalar(a, b)
	}
	b = b[:len(a)]
	var acc archsimd.Float32x8
	for i := 0; i < len(a); i += 8 {
		acc = archsimd.LoadFloat32x8Slice(a[i:]).MulAdd(archsimd.LoadFloat32x8Slice(b[i:]), acc)
	}
	var lanes [8]float32
	acc.Store(&lanes)
	archsimd.ClearAVXUpperBits()
	return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
}

// Axpy adds alpha·x to dst (equal lengths).
func Axpy(dst, x []float32, alpha float32) {
	if !useSIMD || len(dst)%8 != 0 {
		axpyScalar(dst, x, alpha)
		return
	}
	x = x[:len(dst)]
	a := archsimd.BroadcastFloat32x8(alpha)
	for i := 0; i < len(dst); i += 8 {
		archsimd.LoadFloat32x8Slice(x[i:]).MulAdd(a, archsimd.LoadFloat32x8Slice(dst[i:])).StoreSlice(dst[i:])
	}
	archsimd.ClearAVXUpperBits()
}
