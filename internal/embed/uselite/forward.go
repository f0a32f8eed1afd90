package uselite

import (
	"math"

	"github.com/recalld/recalld/internal/embed/internal/linalg"
)

// scratch holds every buffer of one forward pass, sized for maxLen pieces,
// so that a worker embeds text after text without allocating.
type scratch struct {
	tok     tokScratch
	x, y, h []float32
	qkv     []float32
	att     []float32
	ff      []float32
	tmp     []float32
	scores  []float32
	pooled  []float64
	out     []float32
}

func (m *Model) newScratch() *scratch {
	wide, ffw, qkvw := m.dEmb, 0, 0
	for _, l := range m.layers {
		wide = max(wide, l.dModel, l.dAtt)
		ffw = max(ffw, l.dFF)
		qkvw = max(qkvw, 3*l.dAtt)
	}
	n := m.maxLen
	return &scratch{
		x: make([]float32, n*wide), y: make([]float32, n*wide), h: make([]float32, n*wide),
		qkv: make([]float32, n*qkvw), att: make([]float32, n*wide), ff: make([]float32, n*ffw),
		tmp: make([]float32, n*wide), scores: make([]float32, n),
		pooled: make([]float64, wide), out: make([]float32, m.Dim()),
	}
}

// tokens returns the piece ids the model reads for text: at most maxLen.
func (m *Model) tokens(s *scratch, text string) []int32 {
	ids := m.tok.encode(&s.tok, text)
	return ids[:min(len(ids), m.maxLen)]
}

// forward writes the unit vector of the pieces ids into dst (Dim floats).
// No pieces give a zero vector.
func (m *Model) forward(s *scratch, ids []int32, dst []float32) {
	T := len(ids)
	if T == 0 {
		clear(dst)
		return
	}
	d := m.dEmb
	x := s.x[:T*d]
	for t, id := range ids {
		e := m.emb[int(id)*d : int(id)*d+d]
		p := m.timing[t*d : t*d+d]
		row := x[t*d : t*d+d]
		// The graph adds the embedding to (embedding + timing signal):
		// Layer_0/add sums the scattered embeddings and the scattered
		// output of AddTimingSignal, which already holds them.
		for j := range row {
			row[j] = e[j] + (e[j] + p[j])
		}
	}
	for li := range m.layers {
		l := &m.layers[li]
		x = s.x[:T*l.dIn]
		// Attention block: y = attention(norm(x)) + residual(x).
		h := s.h[:T*l.dIn]
		layerNorm(h, x, T, l.ln1Scale, l.ln1Bias, l.eps)
		qkv := s.qkv[:T*3*l.dAtt]
		linalg.MatMul(qkv, h, T, l.qkvW, l.qkvB, false)
		att := s.att[:T*l.dAtt]
		attention(att, qkv, T, l.dAtt, l.heads, l.qScale, s.scores)
		y := s.y[:T*l.dModel]
		linalg.MatMul(y, att, T, l.attW, l.attB, false)
		if l.resW != nil {
			r := s.tmp[:T*l.dModel]
			linalg.MatMul(r, x, T, *l.resW, l.resB, false)
			addTo(y, r)
		} else {
			addTo(y, x)
		}
		// FFN block: x = ffn(norm(y)) + y.
		h = s.h[:T*l.dModel]
		layerNorm(h, y, T, l.ln2Scale, l.ln2Bias, l.eps)
		ff := s.ff[:T*l.dFF]
		linalg.MatMul(ff, h, T, l.ff1W, l.ff1B, true)
		x = s.x[:T*l.dModel]
		linalg.MatMul(x, ff, T, l.ff2W, l.ff2B, false)
		addTo(x, y)
	}
	// Mean over the pieces, the tanh layer, then L2 normalisation.
	dm := m.layers[len(m.layers)-1].dModel
	pooled := s.pooled[:dm]
	clear(pooled)
	for t := range T {
		for j, v := range x[t*dm : t*dm+dm] {
			pooled[j] += float64(v)
		}
	}
	in := s.tmp[:dm]
	for j, v := range pooled {
		in[j] = float32(v / float64(T))
	}
	out := s.out
	linalg.MatMul(out, in, 1, m.outW, m.outB, false)
	var sum float64
	for j, v := range out {
		v = float32(math.Tanh(float64(v)))
		out[j] = v
		sum += float64(v) * float64(v)
	}
	inv := 1 / math.Sqrt(max(sum, float64(m.normEp)))
	for j, v := range out {
		dst[j] = float32(float64(v) * inv)
	}
}

// layerNorm normalises each of the T rows of x over its width into dst:
// (x - mean) / sqrt(var + eps) · scale + bias.
func layerNorm(dst, x []float32, T int, scale, bias []float32, eps float32) {
	w := len(x) / T
	for t := range T {
		row := x[t*w : t*w+w]
		out := dst[t*w : t*w+w]
		var mean float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(w)
		var variance float64
		for _, v := range row {
			dv := float64(v) - mean
			variance += dv * dv
		}
		variance /= float64(w)
		r := 1 / math.Sqrt(variance+float64(eps))
		for j, v := range row {
			out[j] = float32((float64(v)-mean)*r*float64(scale[j])) + bias[j]
		}
	}
}

// attention computes multi-head dot-product attention of the T rows of qkv
// (q, k and v side by side, each dAtt wide, split into heads) into out
// (T × dAtt). Every piece attends to every piece: one text has no padding.
func attention(out, qkv []float32, T, dAtt, heads int, qScale float32, scores []float32) {
	depth := dAtt / heads
	stride := 3 * dAtt
	scores = scores[:T]
	for t := range T {
		for j := range dAtt {
			qkv[t*stride+j] *= qScale
		}
	}
	for hd := range heads {
		off := hd * depth
		for t := range T {
			q := qkv[t*stride+off : t*stride+off+depth]
			mx := float32(math.Inf(-1))
			for u := range T {
				d := linalg.Dot(q, qkv[u*stride+dAtt+off:u*stride+dAtt+off+depth])
				scores[u] = d
				mx = max(mx, d)
			}
			var sum float64
			for u, sc := range scores {
				e := math.Exp(float64(sc - mx))
				scores[u] = float32(e)
				sum += e
			}
			o := out[t*dAtt+off : t*dAtt+off+depth]
			clear(o)
			inv := float32(1 / sum)
			for u, p := range scores {
				linalg.Axpy(o, qkv[u*stride+2*dAtt+off:u*stride+2*dAtt+off+depth], p*inv)
			}
		}
	}
}

func addTo(dst, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] += v
	}
}
