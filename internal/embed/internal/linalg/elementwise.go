package linalg

import "math"

// The polynomials below were fitted with mpmath.chebyfit (near-minimax,
// Chebyshev nodes) and rounded to float32; the errors quoted are those of
// the fit in exact arithmetic, far below float32's own rounding. Each is a
// list of constants (the AVX2 code broadcasts them as immediates: loads
// from an array got hoisted to the top of its loop and spilled) and an
// array of them for the scalar code.

// erfSmall approximates erf(x)/x by a polynomial in x² for |x| ≤ 1
// (relative error 1.2e-9), highest degree first.
const (
	erfS0 = 7.875874871388078e-05
	erfS1 = -0.000801686430349946
	erfS2 = 0.005189087241888046
	erfS3 = -0.02685421146452427
	erfS4 = 0.11283594369888306
	erfS5 = -0.3761262595653534
	erfS6 = 1.1283791065216064
)

var erfSmall = [...]float32{erfS0, erfS1, erfS2, erfS3, erfS4, erfS5, erfS6}

// erfcBig approximates log(erfc(x)) + x² by a polynomial in x − 2.25 for
// 0.5 ≤ x ≤ 4 (absolute error 5e-9), highest degree first. Above 4, erfc is
// below 1.6e-8 and counts as 0.
const (
	erfcB0  = 4.12333669430609e-08
	erfcB1  = -1.4030081274540862e-07
	erfcB2  = -1.2207986799239734e-07
	erfcB3  = 2.3303512080019573e-06
	erfcB4  = -1.652503851801157e-05
	erfcB5  = 0.0001021824064082466
	erfcB6  = -0.0005548972403630614
	erfcB7  = 0.0027716662734746933
	erfcB8  = -0.013312533497810364
	erfcB9  = 0.06513234972953796
	erfcB10 = -0.3829137980937958
	erfcB11 = -1.4649598598480225
)

var erfcBig = [...]float32{erfcB0, erfcB1, erfcB2, erfcB3, erfcB4, erfcB5, erfcB6, erfcB7, erfcB8, erfcB9, erfcB10, erfcB11}

// expPoly approximates exp(r) for |r| ≤ ln2/2 (relative error 2e-9),
// highest degree first.
const (
	expP0 = 0.0013941108481958508
	expP1 = 0.00837512593716383
	expP2 = 0.04166635125875473
	expP3 = 0.16666415333747864
	expP4 = 0.5
	expP5 = 1.0
	expP6 = 1.0
)

var expPoly = [...]float32{expP0, expP1, expP2, expP3, expP4, expP5, expP6}

const (
	log2e = 1.44269504088896341
	// ln2Hi + ln2Lo = ln 2, ln2Hi with few enough bits that n·ln2Hi is
	// exact for every |n| ≤ 128 (Cody and Waite).
	ln2Hi = 0.693145751953125
	ln2Lo = 1.42860682030941723212e-6
	// expLo and expHi bound exp's argument so that 2^n stays a normal
	// float32; below expLo the result is held at about 1.6e-38.
	expLo = -87.0
	expHi = 88.0
)

// exp32 is e^x in float32 to about 1 ulp, the function the AVX2 kernels
// vectorize: x = n·ln2 + r, e^x = 2^n · e^r.
func exp32(x float32) float32 {
	x = min(max(x, expLo), expHi)
	n := float32(math.RoundToEven(float64(x * log2e)))
	r := (x - n*ln2Hi) - n*ln2Lo
	p := expPoly[0]
	for _, c := range expPoly[1:] {
		p = p*r + c
	}
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// gelu32 is x·½(1 + erf(x/√2)) in float32, the function the AVX2 kernels
// vectorize. With z = x/√2, 1 + erf(z) is 1 + z·erfSmall(z²) for
// −0.5 < z < 1, 2 − erfc(z) for z ≥ 1 and erfc(−z) for z ≤ −0.5, erfc from
// erfcBig and exp32: below −0.5, 1 + erf(z) computed from erf would lose
// bits to cancellation.
func gelu32(v float32) float32 {
	z := v * (1 / math.Sqrt2)
	az := float32(math.Abs(float64(z)))
	var onePlusErf float32
	if z > -0.5 && z < 1 {
		u := z * z
		p := erfSmall[0]
		for _, c := range erfSmall[1:] {
			p = p*u + c
		}
		onePlusErf = 1 + z*p
	} else {
		zc := min(az, 4)
		t := zc - 2.25
		p := erfcBig[0]
		for _, c := range erfcBig[1:] {
			p = p*t + c
		}
		e := exp32(p - zc*zc) // erfc(|z|)
		if az > 4 {
			e = 0
		}
		if z > 0 {
			onePlusErf = 2 - e
		} else {
			onePlusErf = e
		}
	}
	return v * onePlusErf * 0.5
}

// GELU applies x·½(1 + erf(x/√2)) to each element of x, in float32 with an
// error of a few units in the last place.
func GELU(x []float32) {
	i := 0
	if useSIMD {
		i = geluSIMD(x)
	}
	for ; i < len(x); i++ {
		x[i] = gelu32(x[i])
	}
}

// Softmax sets x to exp(x − max(x)) / Σ exp(x − max(x)), in float32 (exp to
// about 1 ulp). x must not be empty.
func Softmax(x []float32) {
	_, m := MinMax(x)
	var sum float32
	i := 0
	if useSIMD {
		i, sum = expShiftSIMD(x, m)
	}
	for ; i < len(x); i++ {
		x[i] = exp32(x[i] - m)
		sum += x[i]
	}
	i = 0
	if useSIMD {
		i = divSIMD(x, sum)
	}
	for ; i < len(x); i++ {
		x[i] /= sum
	}
}

// Standardize sets x[i] to float32((x[i] − mean) / std)·w[i] + b[i], the
// subtraction and division in float64 (LayerNorm once the mean and the
// standard deviation are known). w and b are at least as long as x.
func Standardize(x []float32, mean, std float64, w, b []float32) {
	w, b = w[:len(x)], b[:len(x)]
	i := 0
	if useSIMD {
		i = standardizeSIMD(x, mean, std, w, b)
	}
	for ; i < len(x); i++ {
		x[i] = float32((float64(x[i])-mean)/std)*w[i] + b[i]
	}
}

// MinMax returns the least and the greatest element of x (not empty).
func MinMax(x []float32) (lo, hi float32) {
	lo, hi = x[0], x[0]
	i := 0
	if useSIMD {
		i, lo, hi = minMaxSIMD(x)
	}
	for _, v := range x[i:] {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return lo, hi
}

// Quantize sets each dst[i] to q − zp, where q is x[i]/scale rounded to
// even, plus zp, held to [0, 255]: ONNX's QuantizeLinear to uint8 with zero
// point zp (an integer in [0, 255]), less the zero point. dst is as long as
// x.
func Quantize(dst []int16, x []float32, scale, zp float32) {
	dst = dst[:len(x)]
	i := 0
	if useSIMD {
		i = quantizeSIMD(dst, x, scale, zp)
	}
	for ; i < len(x); i++ {
		r := float32(math.RoundToEven(float64(x[i] / scale)))
		dst[i] = int16(min(max(r+zp, 0), 255) - zp)
	}
}
