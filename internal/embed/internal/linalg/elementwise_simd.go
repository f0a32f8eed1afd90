//go:build goexperiment.simd && amd64

package linalg

import (
	"simd/archsimd"
	"unsafe"
)

// The AVX2 versions of elementwise.go's functions each handle the longest
// prefix of whole 8-lane vectors and return its length; the caller does
// the rest with the scalar code.

func broadcast(v float32) archsimd.Float32x8 { return archsimd.BroadcastFloat32x8(v) }

// The polynomials are written out in the loops, not looped over nor in
// functions of their own: an inner loop kept one vector's whole chain in
// flight at a time (GELU ran at 7 ns an element, latency-bound), and the
// compiler neither inlines the longer functions nor passes vectors in
// registers. Straight-line code lets the CPU overlap the chains of
// successive vectors.

func geluSIMD(x []float32) int {
	defer archsimd.ClearAVXUpperBits()
	n := len(x) &^ 7
	// The constants, broadcast once into memory: the loop loads each where
	// it is used (held in registers, they spilled, and the compiler broadcast
	// them again on every iteration).
	c := [...][8]float32{
		{1 / 1.4142135623730951, 1 / 1.4142135623730951, 1 / 1.4142135623730951, 1 / 1.4142135623730951, 1 / 1.4142135623730951, 1 / 1.4142135623730951, 1 / 1.4142135623730951, 1 / 1.4142135623730951},
		{erfS0, erfS0, erfS0, erfS0, erfS0, erfS0, erfS0, erfS0},
		{erfS1, erfS1, erfS1, erfS1, erfS1, erfS1, erfS1, erfS1},
		{erfS2, erfS2, erfS2, erfS2, erfS2, erfS2, erfS2, erfS2},
		{erfS3, erfS3, erfS3, erfS3, erfS3, erfS3, erfS3, erfS3},
		{erfS4, erfS4, erfS4, erfS4, erfS4, erfS4, erfS4, erfS4},
		{erfS5, erfS5, erfS5, erfS5, erfS5, erfS5, erfS5, erfS5},
		{erfS6, erfS6, erfS6, erfS6, erfS6, erfS6, erfS6, erfS6},
		{1, 1, 1, 1, 1, 1, 1, 1},
		{4, 4, 4, 4, 4, 4, 4, 4},
		{2.25, 2.25, 2.25, 2.25, 2.25, 2.25, 2.25, 2.25},
		{erfcB0, erfcB0, erfcB0, erfcB0, erfcB0, erfcB0, erfcB0, erfcB0},
		{erfcB1, erfcB1, erfcB1, erfcB1, erfcB1, erfcB1, erfcB1, erfcB1},
		{erfcB2, erfcB2, erfcB2, erfcB2, erfcB2, erfcB2, erfcB2, erfcB2},
		{erfcB3, erfcB3, erfcB3, erfcB3, erfcB3, erfcB3, erfcB3, erfcB3},
		{erfcB4, erfcB4, erfcB4, erfcB4, erfcB4, erfcB4, erfcB4, erfcB4},
		{erfcB5, erfcB5, erfcB5, erfcB5, erfcB5, erfcB5, erfcB5, erfcB5},
		{erfcB6, erfcB6, erfcB6, erfcB6, erfcB6, erfcB6, erfcB6, erfcB6},
		{erfcB7, erfcB7, erfcB7, erfcB7, erfcB7, erfcB7, erfcB7, erfcB7},
		{erfcB8, erfcB8, erfcB8, erfcB8, erfcB8, erfcB8, erfcB8, erfcB8},
		{erfcB9, erfcB9, erfcB9, erfcB9, erfcB9, erfcB9, erfcB9, erfcB9},
		{erfcB10, erfcB10, erfcB10, erfcB10, erfcB10, erfcB10, erfcB10, erfcB10},
		{erfcB11, erfcB11, erfcB11, erfcB11, erfcB11, erfcB11, erfcB11, erfcB11},
		{expLo, expLo, expLo, expLo, expLo, expLo, expLo, expLo},
		{expHi, expHi, expHi, expHi, expHi, expHi, expHi, expHi},
		{log2e, log2e, log2e, log2e, log2e, log2e, log2e, log2e},
		{-ln2Hi, -ln2Hi, -ln2Hi, -ln2Hi, -ln2Hi, -ln2Hi, -ln2Hi, -ln2Hi},
		{-ln2Lo, -ln2Lo, -ln2Lo, -ln2Lo, -ln2Lo, -ln2Lo, -ln2Lo, -ln2Lo},
		{expP0, expP0, expP0, expP0, expP0, expP0, expP0, expP0},
		{expP1, expP1, expP1, expP1, expP1, expP1, expP1, expP1},
		{expP2, expP2, expP2, expP2, expP2, expP2, expP2, expP2},
		{expP3, expP3, expP3, expP3, expP3, expP3, expP3, expP3},
		{expP4, expP4, expP4, expP4, expP4, expP4, expP4, expP4},
		{expP5, expP5, expP5, expP5, expP5, expP5, expP5, expP5},
		{expP6, expP6, expP6, expP6, expP6, expP6, expP6, expP6},
		{2, 2, 2, 2, 2, 2, 2, 2},
		{-0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5},
		{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5},
	}
	absMask := archsimd.BroadcastInt32x8(0x7fffffff)
	var zero archsimd.Float32x8
	for i := 0; i < n; i += 8 {
		p := (*[8]float32)(unsafe.Pointer(&x[i]))
		v := archsimd.LoadFloat32x8(p)
		z := v.Mul(archsimd.LoadFloat32x8(&c[0]))
		az := z.AsInt32x8().And(absMask).AsFloat32x8()
		// −0.5 < z < 1: 1 + z·P(z²).
		u := z.Mul(z)
		ps := archsimd.LoadFloat32x8(&c[1]).MulAdd(u, archsimd.LoadFloat32x8(&c[2]))
		ps = ps.MulAdd(u, archsimd.LoadFloat32x8(&c[3]))
		ps = ps.MulAdd(u, archsimd.LoadFloat32x8(&c[4]))
		ps = ps.MulAdd(u, archsimd.LoadFloat32x8(&c[5]))
		ps = ps.MulAdd(u, archsimd.LoadFloat32x8(&c[6]))
		ps = ps.MulAdd(u, archsimd.LoadFloat32x8(&c[7]))
		small := z.MulAdd(ps, archsimd.LoadFloat32x8(&c[8]))
		// Elsewhere erfc(|z|) = exp(K(|z|−2.25) − |z|²).
		zc := az.Min(archsimd.LoadFloat32x8(&c[9]))
		t := zc.Sub(archsimd.LoadFloat32x8(&c[10]))
		pb := archsimd.LoadFloat32x8(&c[11]).MulAdd(t, archsimd.LoadFloat32x8(&c[12]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[13]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[14]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[15]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[16]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[17]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[18]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[19]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[20]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[21]))
		pb = pb.MulAdd(t, archsimd.LoadFloat32x8(&c[22]))
		// exp32 on 8 lanes:
		ex := pb.Sub(zc.Mul(zc))
		ex = ex.Max(archsimd.LoadFloat32x8(&c[23])).Min(archsimd.LoadFloat32x8(&c[24]))
		en := ex.Mul(archsimd.LoadFloat32x8(&c[25])).RoundToEven()
		er := en.MulAdd(archsimd.LoadFloat32x8(&c[26]), ex)
		er = en.MulAdd(archsimd.LoadFloat32x8(&c[27]), er)
		ep := archsimd.LoadFloat32x8(&c[28]).MulAdd(er, archsimd.LoadFloat32x8(&c[29]))
		ep = ep.MulAdd(er, archsimd.LoadFloat32x8(&c[30]))
		ep = ep.MulAdd(er, archsimd.LoadFloat32x8(&c[31]))
		ep = ep.MulAdd(er, archsimd.LoadFloat32x8(&c[32]))
		ep = ep.MulAdd(er, archsimd.LoadFloat32x8(&c[33]))
		ep = ep.MulAdd(er, archsimd.LoadFloat32x8(&c[34]))
		e0 := ep.Mul(en.ConvertToInt32().Add(archsimd.BroadcastInt32x8(127)).ShiftAllLeft(23).AsFloat32x8())
		e := e0.Masked(az.LessEqual(archsimd.LoadFloat32x8(&c[9])))
		big := e.Merge(archsimd.LoadFloat32x8(&c[35]).Sub(e), z.LessEqual(zero))
		r := small.Merge(big, z.Greater(archsimd.LoadFloat32x8(&c[36])).And(z.Less(archsimd.LoadFloat32x8(&c[8]))))
		v.Mul(r).Mul(archsimd.LoadFloat32x8(&c[37])).Store(p)
	}
	return n
}

func expShiftSIMD(x []float32, m float32) (int, float32) {
	defer archsimd.ClearAVXUpperBits()
	n := len(x) &^ 7
	mv := broadcast(m)
	var acc archsimd.Float32x8
	for i := 0; i < n; i += 8 {
		p := (*[8]float32)(unsafe.Pointer(&x[i]))
		ex := archsimd.LoadFloat32x8(p).Sub(mv)
		ex = ex.Max(broadcast(expLo)).Min(broadcast(expHi))
		en := ex.Mul(broadcast(log2e)).RoundToEven()
		er := en.MulAdd(broadcast(-ln2Hi), ex)
		er = en.MulAdd(broadcast(-ln2Lo), er)
		ep := broadcast(expP0).MulAdd(er, broadcast(expP1))
		ep = ep.MulAdd(er, broadcast(expP2))
		ep = ep.MulAdd(er, broadcast(expP3))
		ep = ep.MulAdd(er, broadcast(expP4))
		ep = ep.MulAdd(er, broadcast(expP5))
		ep = ep.MulAdd(er, broadcast(expP6))
		e := ep.Mul(en.ConvertToInt32().Add(archsimd.BroadcastInt32x8(127)).ShiftAllLeft(23).AsFloat32x8())
		e.Store(p)
		acc = acc.Add(e)
	}
	var lanes [8]float32
	acc.Store(&lanes)
	return n, ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
}

func minMaxSIMD(x []float32) (n int, lo, hi float32) {
	n = len(x) &^ 7
	if n == 0 {
		return 0, x[0], x[0]
	}
	defer archsimd.ClearAVXUpperBits()
	l := archsimd.LoadFloat32x8((*[8]float32)(x[:8]))
	h := l
	for i := 8; i < n; i += 8 {
		v := archsimd.LoadFloat32x8((*[8]float32)(unsafe.Pointer(&x[i])))
		l, h = l.Min(v), h.Max(v)
	}
	var ls, hs [8]float32
	l.Store(&ls)
	h.Store(&hs)
	lo, hi = ls[0], hs[0]
	for j := 1; j < 8; j++ {
		lo, hi = min(lo, ls[j]), max(hi, hs[j])
	}
	return n, lo, hi
}

func quantizeSIMD(dst []int16, x []float32, scale, zp float32) int {
	defer archsimd.ClearAVXUpperBits()
	n := len(x) &^ 7
	sv, zv := broadcast(scale), broadcast(zp)
	var zero archsimd.Float32x8
	top := broadcast(255)
	for i := 0; i < n; i += 8 {
		v := archsimd.LoadFloat32x8((*[8]float32)(unsafe.Pointer(&x[i])))
		q := v.Div(sv).RoundToEven().Add(zv).Max(zero).Min(top).Sub(zv).ConvertToInt32()
		q.GetLo().SaturateToInt16Concat(q.GetHi()).Store((*[8]int16)(unsafe.Pointer(&dst[i])))
	}
	return n
}

func divSIMD(x []float32, d float32) int {
	defer archsimd.ClearAVXUpperBits()
	n := len(x) &^ 7
	dv := broadcast(d)
	for i := 0; i < n; i += 8 {
		p := (*[8]float32)(unsafe.Pointer(&x[i]))
		archsimd.LoadFloat32x8(p).Div(dv).Store(p)
	}
	return n
}

// standardizeSIMD works on 4 lanes: the subtraction and division are in
// float64, as in the scalar code.
func standardizeSIMD(x []float32, mean, std float64, w, b []float32) int {
	defer archsimd.ClearAVXUpperBits()
	n := len(x) &^ 3
	w, b = w[:n], b[:n]
	mv, sv := archsimd.BroadcastFloat64x4(mean), archsimd.BroadcastFloat64x4(std)
	for i := 0; i < n; i += 4 {
		p := (*[4]float32)(unsafe.Pointer(&x[i]))
		v := archsimd.LoadFloat32x4(p).ConvertToFloat64().Sub(mv).Div(sv).ConvertToFloat32()
		wv := archsimd.LoadFloat32x4((*[4]float32)(unsafe.Pointer(&w[i])))
		bv := archsimd.LoadFloat32x4((*[4]float32)(unsafe.Pointer(&b[i])))
		v.Mul(wv).Add(bv).Store(p)
	}
	return n
}
