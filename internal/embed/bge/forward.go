package bge

import (
	"math"
	"sync"

	"github.com/recalld/recalld/internal/embed/internal/linalg"
)

// scratch holds the buffers of one forward pass, grown to the longest text
// seen, so a worker embeds text after text without allocating.
type scratch struct {
	x, h, att, out []float32     // T × hidden
	qkv            []float32     // T × 3·hidden
	ff             []float32     // T × ffn
	q              []int16       // quantized activations, T × max(hidden, ffn)
	mul            []float32     // the output scale of each column, ffn
	heads          []headScratch // one per thread
}

// headScratch holds the buffers of one attention head (tp: T rounded up to
// a whole weight panel).
type headScratch struct {
	q, o   []float32 // T × headDim
	kt     []float32 // headDim × tp
	v      []float32 // tp × headDim
	s      []float32 // T × tp
	km, vm linalg.Matrix
}

func (s *scratch) grow(a *arch, t, threads int) {
	hidden, ffn, headDim := a.hidden, a.ffn, a.headDim
	if len(s.x) >= t*hidden && len(s.heads) >= threads {
		return
	}
	s.x = make([]float32, t*hidden)
	s.h = make([]float32, t*hidden)
	s.att = make([]float32, t*hidden)
	s.out = make([]float32, t*hidden)
	s.qkv = make([]float32, t*3*hidden)
	s.ff = make([]float32, t*ffn)
	s.q = make([]int16, t*ffn)
	s.mul = make([]float32, ffn)
	tp := (t + linalg.Panel - 1) / linalg.Panel * linalg.Panel
	s.heads = make([]headScratch, threads)
	for i := range s.heads {
		s.heads[i] = headScratch{
			q:  make([]float32, t*headDim),
			o:  make([]float32, t*headDim),
			kt: make([]float32, headDim*tp),
			v:  make([]float32, tp*headDim),
			s:  make([]float32, t*tp),
		}
	}
}

// EmbedIDs returns the L2-normalised vector of the token ids, pooled as the
// Spec says (the CLS vector, or the mean of all tokens), for ids as
// Tokenizer.Encode returns them ([CLS] … [SEP], at most MaxTokens). Ids
// outside the vocabulary count as [UNK].
func (m *Model) EmbedIDs(ids []int32) []float32 {
	return m.embedIDs(ids, m.threads)
}

// embedIDs is EmbedIDs with the matrix products split over threads
// goroutines.
func (m *Model) embedIDs(ids []int32, threads int) []float32 {
	if len(ids) > MaxTokens {
		ids = ids[:MaxTokens]
	}
	hidden := m.arch.hidden
	T := len(ids)
	if T == 0 {
		return make([]float32, hidden)
	}
	s, _ := m.scratch.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	defer m.scratch.Put(s)
	s.grow(&m.arch, T, threads)
	x := s.x[:T*hidden]
	m.embed(x, ids, s.h)
	cls := m.spec.Pooling == PoolCLS
	for i := range m.layers {
		m.layer(&m.layers[i], x, T, s, threads, cls && i == len(m.layers)-1)
	}
	v := make([]float32, hidden)
	if cls {
		copy(v, x[:hidden])
	} else {
		meanRows(v, x, T)
	}
	normalize(v)
	return v
}

// meanRows sets v (n) to the mean of the T rows of x (T × n).
func meanRows(v, x []float32, T int) {
	n := len(v)
	sum := make([]float64, n)
	for t := range T {
		for j, c := range x[t*n : (t+1)*n] {
			sum[j] += float64(c)
		}
	}
	for j := range v {
		v[j] = float32(sum[j] / float64(T))
	}
}

// embed sets x to LayerNorm(word + type + position) of each id.
func (m *Model) embed(x []float32, ids []int32, tmp []float32) {
	hidden := m.arch.hidden
	typ := tmp[:hidden]
	pos := tmp[hidden : 2*hidden]
	m.typ.row(0, typ)
	for t, id := range ids {
		if id < 0 || int(id) >= m.vocabSize {
			id = m.unk
		}
		row := x[t*hidden : (t+1)*hidden]
		m.word.row(int(id), row)
		m.pos.row(t, pos)
		for j := range row {
			row[j] = (row[j] + typ[j]) + pos[j]
		}
		layerNorm(row, m.embLN)
	}
}

// layer runs one encoder layer on x (T × hidden) in place, each step split
// over threads goroutines: the matrix products by columns, attention by
// heads, the rest by rows. When only the first row (CLS) of the result is
// wanted (clsOnly: the last layer of a CLS-pooled model), the second
// feed-forward product and the final LayerNorm run on that row alone (its
// quantization still takes the scale of all rows, so the row comes out as
// before); the other rows of x are left half-done.
func (m *Model) layer(l *layer, x []float32, T int, s *scratch, threads int, clsOnly bool) {
	a := &m.arch
	hidden, heads, ffn := a.hidden, a.heads, a.ffn
	qkv := s.qkv[:T*3*hidden]
	quantLinear(qkv, x, T, T, l.qkv, s, threads)

	att := s.att[:T*hidden]
	parallel(threads, heads, heads*T*T*a.headDim, func(part, h0, h1 int) {
		for h := h0; h < h1; h++ {
			a.attend(att, qkv, T, h, &s.heads[part])
		}
	})

	out := s.out[:T*hidden]
	quantLinear(out, att, T, T, l.attOut, s, threads)
	addNorm(x, out, T, hidden, l.ln1, threads)

	ff := s.ff[:T*ffn]
	quantLinear(ff, x, T, T, l.ffn1, s, threads)
	parallel(threads, T, T*ffn*8, func(_, t0, t1 int) {
		linalg.GELU(ff[t0*ffn : t1*ffn])
	})
	rows := T
	if clsOnly {
		rows = 1
	}
	quantLinear(out, ff, T, rows, l.ffn2, s, threads)
	addNorm(x, out, rows, hidden, l.ln2, threads)
}

// attend sets head h of att (T × hidden) to the attention of each token
// over all T tokens of qkv (T × 3·hidden: queries, keys, values), as two
// matrix products: the head's queries (divided by the scale, √headDim:
// bge-small-zh's 8 exactly, e5-small-v2's 5.656854) times its keys,
// transposed and padded with zero columns to whole panels; a softmax of
// each row; times its values (padded with zero rows). The graph divides the
// products instead; the results differ by float rounding only (not at all
// for a power of two).
func (a *arch) attend(att, qkv []float32, T, h int, b *headScratch) {
	hidden, headDim, scale := a.hidden, a.headDim, a.scale
	off := h * headDim
	tp := (T + linalg.Panel - 1) / linalg.Panel * linalg.Panel
	q, o := b.q[:T*headDim], b.o[:T*headDim]
	kt, v, sc := b.kt[:headDim*tp], b.v[:tp*headDim], b.s[:T*tp]
	clear(kt)
	clear(v[T*headDim:])
	for t := range T {
		row := qkv[t*3*hidden : (t+1)*3*hidden]
		for d, x := range row[off : off+headDim] {
			q[t*headDim+d] = x / scale
		}
		for d, x := range row[hidden+off : hidden+off+headDim] {
			kt[d*tp+t] = x
		}
		copy(v[t*headDim:(t+1)*headDim], row[2*hidden+off:2*hidden+off+headDim])
	}
	b.km.Repack(kt, headDim, tp)
	linalg.MatMul(sc, q, T, b.km, nil, false)
	for t := range T {
		p := sc[t*tp : (t+1)*tp]
		linalg.Softmax(p[:T])
		clear(p[T:])
	}
	b.vm.Repack(v, tp, headDim)
	linalg.MatMul(o, sc, T, b.vm, nil, false)
	for t := range T {
		copy(att[t*hidden+off:t*hidden+off+headDim], o[t*headDim:(t+1)*headDim])
	}
}

// addNorm adds out to x (T × hidden) and normalises each row with wb.
func addNorm(x, out []float32, T, hidden int, wb [2][]float32, threads int) {
	parallel(threads, T, T*hidden*8, func(_, t0, t1 int) {
		for i := t0 * hidden; i < t1*hidden; i++ {
			x[i] += out[i]
		}
		for t := t0; t < t1; t++ {
			layerNorm(x[t*hidden:(t+1)*hidden], wb)
		}
	})
}

// minParallelWork is the cost (in multiply-adds, roughly) below which
// parallel runs on the calling goroutine alone.
const minParallelWork = 1 << 17

// parallel splits [0, n) into up to threads contiguous parts and runs f on
// each, part i on a goroutine of its own (the first on the caller's), and
// returns when all are done. work is the cost of the whole; below
// minParallelWork, f runs once over [0, n).
func parallel(threads, n, work int, f func(part, lo, hi int)) {
	parts := min(threads, n, max(work/minParallelWork, 1))
	if parts <= 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for i := 1; i < parts; i++ {
		wg.Go(func() { f(i, i*n/parts, (i+1)*n/parts) })
	}
	f(0, 0, n/parts)
	wg.Wait()
}

// quantLinear sets out (outRows × n) to the first outRows rows of in (rows
// × k) times w plus bias the way the graph's DynamicQuantizeLinear +
// MatMulInteger does: in is quantized to uint8 with one scale and zero
// point for the whole tensor (all rows), multiplied by the int8 weights in
// integers (exact: linalg.QMatMul), and scaled back per column.
func quantLinear(out, in []float32, rows, outRows int, w qmatrix, s *scratch, threads int) {
	k, n := w.w.K(), w.w.N()
	lo, hi := linalg.MinMax(in[:rows*k])
	lo, hi = min(lo, 0), max(hi, 0)
	scale := (hi - lo) / 255
	if hi == lo {
		scale = 1
	}
	zp := float32(math.RoundToEven(float64(min(max(0-lo/scale, 0), 255))))
	q := s.q[:outRows*k]
	linalg.Quantize(q, in[:outRows*k], scale, zp)
	mul := s.mul[:n]
	for j := range mul {
		mul[j] = scale * w.scale[j]
	}
	linalg.QMatMulParallel(out, q, outRows, w.w, mul, w.bias, threads)
}

// layerNorm normalises x to zero mean and unit variance, then applies the
// weight and bias.
func layerNorm(x []float32, wb [2][]float32) {
	var mean float64
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	var variance float64
	for _, v := range x {
		d := float64(v) - mean
		variance += d * d
	}
	variance /= float64(len(x))
	linalg.Standardize(x, mean, math.Sqrt(variance+lnEps), wb[0], wb[1])
}

func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}
