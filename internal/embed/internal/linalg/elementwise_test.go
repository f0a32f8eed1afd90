package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGELU compares GELU (the SIMD lanes and the scalar tail) with float64
// math.Erf over the range BERT's activations take and beyond: the error
// must stay within 4 float32 ulps of the result, or 1e-7 where the result
// is small (x < 0, where GELU(x) → 0: what matters downstream is the
// absolute error, against quantization steps of 1e-3 and more).
func TestGELU(t *testing.T) {
	var x []float32
	for v := float32(-12); v <= 12; v += 1.0 / 1024 {
		x = append(x, v)
	}
	x = append(x, 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 100, -100, 1.4142135, -1.4142135)
	got := append([]float32(nil), x...)
	GELU(got)
	var worst float64
	for i, v := range x {
		want := float64(v) * (1 + math.Erf(float64(v)/math.Sqrt2)) / 2
		tol := max(math.Abs(want)*4*0x1p-24, 1e-7)
		d := math.Abs(float64(got[i]) - want)
		if d > tol {
			t.Errorf("GELU(%v) = %v, want %v (|diff| %.3g > %.3g)", v, got[i], want, d, tol)
		}
		worst = max(worst, d)
	}
	t.Logf("max |diff| %.3g", worst)
}

func TestExp32(t *testing.T) {
	for x := float32(-87); x <= 88; x += 0.001 {
		want := math.Exp(float64(x))
		if d := math.Abs(float64(exp32(x))-want) / want; d > 2*0x1p-24 {
			t.Fatalf("exp32(%v) = %v, want %v (relative error %.3g)", x, exp32(x), want, d)
		}
	}
}

// TestSoftmax checks Softmax on lengths with and without a scalar tail.
func TestSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 7, 8, 51, 64} {
		x := randSlice(r, n)
		for i := range x {
			x[i] *= 20
		}
		m := x[0]
		for _, v := range x {
			m = max(m, v)
		}
		var sum float64
		for _, v := range x {
			sum += math.Exp(float64(v - m))
		}
		want := make([]float64, n)
		for i, v := range x {
			want[i] = math.Exp(float64(v-m)) / sum
		}
		Softmax(x)
		for i := range x {
			if d := math.Abs(float64(x[i]) - want[i]); d > 4*0x1p-24*max(want[i], 1e-30) && d > 1e-9 {
				t.Errorf("n %d: softmax[%d] = %v, want %v", n, i, x[i], want[i])
			}
		}
	}
}

// TestQuantize checks Quantize and MinMax against the plain formulas,
// exactly, on values that land on rounding ties and beyond both clamps.
func TestQuantize(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 8, 13, 1024} {
		x := randSlice(r, n)
		for i := range x {
			x[i] *= 8
			if i%5 == 0 {
				x[i] = float32(i%11-5) * 0.25 // ties of /0.5
			}
		}
		x[0] = 40 // above 255 once quantized
		lo, hi := MinMax(x)
		wlo, whi := x[0], x[0]
		for _, v := range x {
			wlo, whi = min(wlo, v), max(whi, v)
		}
		if lo != wlo || hi != whi {
			t.Errorf("n %d: MinMax = %v, %v, want %v, %v", n, lo, hi, wlo, whi)
		}
		const scale, zp = 0.5, 7
		got := make([]int16, n)
		Quantize(got, x, scale, zp)
		for i, v := range x {
			q := math.RoundToEven(float64(v/scale)) + zp
			want := int16(min(max(q, 0), 255) - zp)
			if got[i] != want {
				t.Errorf("n %d: Quantize(%v) = %d, want %d", n, v, got[i], want)
			}
		}
	}
}

func BenchmarkGELU(b *testing.B) {
	x := randSlice(rand.New(rand.NewPCG(1, 2)), 51*2048)
	y := make([]float32, len(x))
	for b.Loop() {
		copy(y, x)
		GELU(y)
	}
}

// TestStandardize checks the vector code against the scalar formula, bit
// for bit, at lengths that leave every remainder.
func TestStandardize(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 3, 4, 7, 9, 512} {
		x, w, b := randSlice(r, n), randSlice(r, n), randSlice(r, n)
		mean, std := 0.123456789, 1.7320508075688772
		want := make([]float32, n)
		for i, v := range x {
			want[i] = float32((float64(v)-mean)/std)*w[i] + b[i]
		}
		Standardize(x, mean, std, w, b)
		for i := range x {
			if x[i] != want[i] {
				t.Fatalf("n=%d: x[%d] = %v, want %v", n, i, x[i], want[i])
			}
		}
	}
}
