//go:build goexperiment.simd && amd64

package linalg

import (
	"simd/archsimd"
	"unsafe"
)

// qmatmulSIMD is the AVX2 integer kernel. As matmulSIMD it walks the
// weight panels in the outer loop; inside, blocks of 3 rows × 16 columns
// (six 8-lane int32 accumulators) run along k two values at a time: the
// panel's int16 pairs are loaded, each row's pair
// (a[2p], a[2p+1]) is broadcast, and VPMADDWD multiplies and adds the pairs
// exactly. Three rows, not four: the compiler schedules every accumulator
// update at the end of the loop body, and with four rows the eight pending
// products and eight accumulators no longer fit in the sixteen YMM
// registers (it spills). The rows left over (rows mod 3) run through
// blocks of 2 or 1 rows.
func qmatmulSIMD(out []float32, a []int16, rows int, m QMatrix, scale, bias []float32, c0, c1 int) {
	defer archsimd.ClearAVXUpperBits()
	k, n := m.k, m.n
	ap := unsafe.Pointer(unsafe.SliceData(a))
	row := func(i int) unsafe.Pointer { return unsafe.Add(ap, i*k*2) }
	for j0 := c0; j0 < c1; j0 += nr {
		pp := unsafe.Pointer(unsafe.SliceData(m.p[j0*k : (j0+nr)*k]))
		sb := [2]*[nr]float32{(*[nr]float32)(scale[j0 : j0+nr]), (*[nr]float32)(bias[j0 : j0+nr])}
		dst := func(i int) *[nr]float32 { return (*[nr]float32)(out[i*n+j0 : i*n+j0+nr]) }
		i := 0
		for ; i+3 <= rows; i += 3 {
			as := [3]unsafe.Pointer{row(i), row(i + 1), row(i + 2)}
			ds := [3]*[nr]float32{dst(i), dst(i + 1), dst(i + 2)}
			qblock(&ds, &as, pp, k/2, &sb)
		}
		switch rows - i {
		case 2:
			as := [2]unsafe.Pointer{row(i), row(i + 1)}
			ds := [2]*[nr]float32{dst(i), dst(i + 1)}
			qblock2(&ds, &as, pp, k/2, &sb)
		case 1:
			qblock1(dst(i), row(i), pp, k/2, &sb)
		}
	}
}

// qblock computes one block of 3 rows × 16 columns: the rows as[r] (pairs
// int16 pairs each) times the panel at pp, scaled and biased by sb, into
// ds[r]. It is a function of its own so that the loop has the registers to
// itself.
func qblock(ds *[3]*[nr]float32, as *[3]unsafe.Pointer, pp unsafe.Pointer, pairs int, sb *[2]*[nr]float32) {
	a0, a1, a2 := as[0], as[1], as[2]
	var c00, c01, c10, c11, c20, c21 archsimd.Int32x8
	for p := range pairs {
		w0 := archsimd.LoadInt16x16((*[16]int16)(unsafe.Add(pp, p*64)))
		w1 := archsimd.LoadInt16x16((*[16]int16)(unsafe.Add(pp, p*64+32)))
		x := archsimd.BroadcastInt32x8(*(*int32)(unsafe.Add(a0, p*4))).AsInt16x16()
		c00 = c00.Add(w0.DotProductPairs(x))
		c01 = c01.Add(w1.DotProductPairs(x))
		x = archsimd.BroadcastInt32x8(*(*int32)(unsafe.Add(a1, p*4))).AsInt16x16()
		c10 = c10.Add(w0.DotProductPairs(x))
		c11 = c11.Add(w1.DotProductPairs(x))
		x = archsimd.BroadcastInt32x8(*(*int32)(unsafe.Add(a2, p*4))).AsInt16x16()
		c20 = c20.Add(w0.DotProductPairs(x))
		c21 = c21.Add(w1.DotProductPairs(x))
	}
	s0, s1 := archsimd.LoadFloat32x8((*[8]float32)(sb[0][:8])), archsimd.LoadFloat32x8((*[8]float32)(sb[0][8:]))
	b0, b1 := archsimd.LoadFloat32x8((*[8]float32)(sb[1][:8])), archsimd.LoadFloat32x8((*[8]float32)(sb[1][8:]))
	qstore(ds[0], c00, c01, s0, s1, b0, b1)
	qstore(ds[1], c10, c11, s0, s1, b0, b1)
	qstore(ds[2], c20, c21, s0, s1, b0, b1)
}

// qblock2 is qblock for 2 rows.
func qblock2(ds *[2]*[nr]float32, as *[2]unsafe.Pointer, pp unsafe.Pointer, pairs int, sb *[2]*[nr]float32) {
	a0, a1 := as[0], as[1]
	var c00, c01, c10, c11 archsimd.Int32x8
	for p := range pairs {
		w0 := archsimd.LoadInt16x16((*[16]int16)(unsafe.Add(pp, p*64)))
		w1 := archsimd.LoadInt16x16((*[16]int16)(unsafe.Add(pp, p*64+32)))
		x := archsimd.BroadcastInt32x8(*(*int32)(unsafe.Add(a0, p*4))).AsInt16x16()
		c00 = c00.Add(w0.DotProductPairs(x))
		c01 = c01.Add(w1.DotProductPairs(x))
		x = archsimd.BroadcastInt32x8(*(*int32)(unsafe.Add(a1, p*4))).AsInt16x16()
		c10 = c10.Add(w0.DotProductPairs(x))
		c11 = c11.Add(w1.DotProductPairs(x))
	}
	s0, s1 := archsimd.LoadFloat32x8((*[8]float32)(sb[0][:8])), archsimd.LoadFloat32x8((*[8]float32)(sb[0][8:]))
	b0, b1 := archsimd.LoadFloat32x8((*[8]float32)(sb[1][:8])), archsimd.LoadFloat32x8((*[8]float32)(sb[1][8:]))
	qstore(ds[0], c00, c01, s0, s1, b0, b1)
	qstore(ds[1], c10, c11, s0, s1, b0, b1)
}

// qblock1 is qblock for 1 row.
func qblock1(d *[nr]float32, a0, pp unsafe.Pointer, pairs int, sb *[2]*[nr]float32) {
	var c00, c01 archsimd.Int32x8
	for p := range pairs {
		w0 := archsimd.LoadInt16x16((*[16]int16)(unsafe.Add(pp, p*64)))
		w1 := archsimd.LoadInt16x16((*[16]int16)(unsafe.Add(pp, p*64+32)))
		x := archsimd.BroadcastInt32x8(*(*int32)(unsafe.Add(a0, p*4))).AsInt16x16()
		c00 = c00.Add(w0.DotProductPairs(x))
		c01 = c01.Add(w1.DotProductPairs(x))
	}
	s0, s1 := archsimd.LoadFloat32x8((*[8]float32)(sb[0][:8])), archsimd.LoadFloat32x8((*[8]float32)(sb[0][8:]))
	b0, b1 := archsimd.LoadFloat32x8((*[8]float32)(sb[1][:8])), archsimd.LoadFloat32x8((*[8]float32)(sb[1][8:]))
	qstore(d, c00, c01, s0, s1, b0, b1)
}

// qstore converts 16 int32 sums to float32 and stores sum·scale + bias,
// rounding the product and the sum apart as the scalar kernel does.
func qstore(dst *[nr]float32, c0, c1 archsimd.Int32x8, s0, s1, b0, b1 archsimd.Float32x8) {
	c0.ConvertToFloat32().Mul(s0).Add(b0).Store((*[8]float32)(dst[:8]))
	c1.ConvertToFloat32().Mul(s1).Add(b1).Store((*[8]float32)(dst[8:]))
}
