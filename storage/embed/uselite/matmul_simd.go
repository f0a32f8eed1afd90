//go:build goexperiment.simd && amd64

package uselite

import "simd/archsimd"

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

// matmulSIMD is the AVX2 kernel: blocks of 4 rows × 16 columns (eight
// 8-lane accumulators) while k runs, one fused multiply-add per lane.
func matmulSIMD(out, a []float32, rows int, m matrix) {
	k, n := m.k, m.n
	i := 0
	for ; i+4 <= rows; i += 4 {
		a0 := a[i*k : i*k+k]
		a1 := a[(i+1)*k : (i+1)*k+k]
		a2 := a[(i+2)*k : (i+2)*k+k]
		a3 := a[(i+3)*k : (i+3)*k+k]
		for j0 := 0; j0 < n; j0 += nr {
			panel := m.p[j0*k : (j0+nr)*k]
			var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x8
			for kk := range a0 {
				b0 := archsimd.LoadFloat32x8Slice(panel[kk*nr:])
				b1 := archsimd.LoadFloat32x8Slice(panel[kk*nr+8:])
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
			c00.StoreSlice(out[i*n+j0:])
			c01.StoreSlice(out[i*n+j0+8:])
			c10.StoreSlice(out[(i+1)*n+j0:])
			c11.StoreSlice(out[(i+1)*n+j0+8:])
			c20.StoreSlice(out[(i+2)*n+j0:])
			c21.StoreSlice(out[(i+2)*n+j0+8:])
			c30.StoreSlice(out[(i+3)*n+j0:])
			c31.StoreSlice(out[(i+3)*n+j0+8:])
		}
	}
	for ; i < rows; i++ {
		a0 := a[i*k : i*k+k]
		for j0 := 0; j0 < n; j0 += nr {
			panel := m.p[j0*k : (j0+nr)*k]
			var c0, c1 archsimd.Float32x8
			for kk, v := range a0 {
				x := archsimd.BroadcastFloat32x8(v)
				c0 = archsimd.LoadFloat32x8Slice(panel[kk*nr:]).MulAdd(x, c0)
				c1 = archsimd.LoadFloat32x8Slice(panel[kk*nr+8:]).MulAdd(x, c1)
			}
			c0.StoreSlice(out[i*n+j0:])
			c1.StoreSlice(out[i*n+j0+8:])
		}
	}
}
