package uselite

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/recalld/recalld/internal/embed/internal/linalg"
)

// supportedOps are the TF ops of the USE-Lite graph. The forward pass below
// computes what they compute for one text; a graph with any other op is not
// the model this package was written for.
var supportedOps = []string{
	"Add", "BatchMatMul", "BiasAdd", "Cast", "ConcatV2", "Const", "Conv2D", "Cos", "ExpandDims",
	"GatherNd", "GatherV2", "Greater", "Less", "LogicalNot", "MatMul", "Max", "Maximum", "Mean",
	"Mul", "Pack", "Placeholder", "Prod", "Range", "RealDiv", "Relu", "Reshape", "Rsqrt", "ScatterNd",
	"Shape", "Sin", "Slice", "Softmax", "SparseToDense", "SplitV", "Square", "Squeeze", "StridedSlice",
	"Sub", "Sum", "Tanh", "Transpose", "Where",
}

// Model is the Universal Sentence Encoder Lite: a SentencePiece tokenizer,
// a two-layer transformer over at most maxLen pieces, mean pooling and a tanh
// layer, giving a unit vector of Dim floats. A Model is read-only after
// Load and safe for concurrent use.
type Model struct {
	tok    *Tokenizer
	maxLen int
	dEmb   int       // embedding width
	emb    []float32 // vocab × dEmb
	timing []float32 // maxLen × dEmb: sin then cos of position × inverse timescale
	layers []layer
	outW   linalg.Matrix
	outB   []float32
	normEp float32 // l2_normalize floor of the squared norm
}

// layer is one transformer layer: pre-norm attention and pre-norm FFN, each
// added to its residual.
type layer struct {
	dIn, dModel, dAtt, heads, dFF int
	eps                           float32
	ln1Scale, ln1Bias             []float32
	resW                          *linalg.Matrix // projects the residual when dIn != dModel
	resB                          []float32
	qkvW                          linalg.Matrix // dIn × 3·dAtt
	qkvB                          []float32
	qScale                        float32
	attW                          linalg.Matrix // dAtt × dModel
	attB                          []float32
	ln2Scale, ln2Bias             []float32
	ff1W                          linalg.Matrix
	ff1B                          []float32
	ff2W                          linalg.Matrix
	ff2B                          []float32
}

// Load reads the model from dir: model.json and its weight shards (the
// TF.js graph format) and vocab.json. Any missing file, bad size or
// unexpected graph gives an error wrapping ErrModel; Load never panics on
// bad files.
func Load(dir string) (*Model, error) {
	g, err := readGraph(dir)
	if err != nil {
		return nil, err
	}
	vocab, err := os.ReadFile(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	tok, err := NewTokenizer(vocab)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	m, err := build(g)
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() > len(m.emb)/m.dEmb {
		return nil, fmt.Errorf("%w: vocabulary has %d pieces, the embedding table %d rows", ErrModel, tok.VocabSize(), len(m.emb)/m.dEmb)
	}
	m.tok = tok
	return m, nil
}

// Tokenizer returns the model's tokenizer.
func (m *Model) Tokenizer() *Tokenizer { return m.tok }

// Dim is the length of the output vectors (512).
func (m *Model) Dim() int { return m.outW.N() }

// MaxLen is the number of pieces the model reads; later pieces are dropped.
func (m *Model) MaxLen() int { return m.maxLen }

// build resolves the weights and constants of the forward pass from the graph.
func build(g *graph) (*Model, error) {
	var odd []string
	for _, n := range g.nodes {
		if _, ok := slices.BinarySearch(supportedOps, n.Op); !ok {
			odd = append(odd, n.Op)
		}
	}
	if len(odd) > 0 {
		sort.Strings(odd)
		return nil, fmt.Errorf("%w: unsupported ops %v", ErrModel, slices.Compact(odd))
	}
	m := &Model{}
	embT, err := g.constIn("Encode/embedding_lookup", "GatherV2", 0)
	if err != nil {
		return nil, err
	}
	if len(embT.shape) != 2 || embT.f == nil || embT.shape[0] < 1 || embT.shape[1] < 2 || embT.shape[1]%2 != 0 {
		return nil, fmt.Errorf("%w: embedding table has shape %v", ErrModel, embT.shape)
	}
	m.emb, m.dEmb = embT.f, embT.shape[1]
	maxLen, err := g.scalar("ClipToMaxLength/Less", "Less", 1)
	if err != nil {
		return nil, err
	}
	if maxLen < 1 || maxLen > 4096 {
		return nil, fmt.Errorf("%w: max length %v", ErrModel, maxLen)
	}
	m.maxLen = int(maxLen)
	inv, err := g.floats("Layer_0/AddTimingSignal/TimingSignal/mul_2", "Mul", 1, 1, m.dEmb/2)
	if err != nil {
		return nil, err
	}
	m.timing = make([]float32, m.maxLen*m.dEmb)
	half := m.dEmb / 2
	for pos := range m.maxLen {
		row := m.timing[pos*m.dEmb : (pos+1)*m.dEmb]
		for j, f := range inv {
			x := float64(float32(pos) * f)
			row[j] = float32(math.Sin(x))
			row[half+j] = float32(math.Cos(x))
		}
	}
	d := m.dEmb
	for i := 0; g.has("TransformerStack/Layer_" + strconv.Itoa(i) + "/TransformerLayer/MultiheadAttention/mul"); i++ {
		l, err := buildLayer(g, i, d)
		if err != nil {
			return nil, err
		}
		m.layers = append(m.layers, l)
		d = l.dModel
	}
	if len(m.layers) == 0 {
		return nil, fmt.Errorf("%w: no transformer layers", ErrModel)
	}
	tw, err := g.constIn("hidden_layers/tanh_layer_0/MatMul", "MatMul", 1)
	if err != nil {
		return nil, err
	}
	if len(tw.shape) != 2 || tw.shape[0] != d || tw.shape[1]%linalg.Panel != 0 || tw.f == nil {
		return nil, fmt.Errorf("%w: tanh layer has shape %v", ErrModel, tw.shape)
	}
	m.outW = linalg.Pack(tw.f, d, tw.shape[1])
	if m.outB, err = g.floats("hidden_layers/tanh_layer_0/BiasAdd", "BiasAdd", 1, tw.shape[1]); err != nil {
		return nil, err
	}
	eps, err := g.scalar("hidden_layers/l2_normalize/Maximum", "Maximum", 1)
	if err != nil {
		return nil, err
	}
	m.normEp = float32(eps)
	return m, nil
}

func buildLayer(g *graph, i, dIn int) (layer, error) {
	p := "TransformerStack/Layer_" + strconv.Itoa(i) + "/TransformerLayer/"
	l := layer{dIn: dIn}
	var err error
	get := func(dst *[]float32, suffix, op string, in int, shape ...int) {
		if err == nil {
			*dst, err = g.floats(p+suffix, op, in, shape...)
		}
	}
	mat := func(suffix, op string, k int) (linalg.Matrix, int) {
		if err != nil {
			return linalg.Matrix{}, 0
		}
		t, e := g.constIn(p+suffix, op, 1)
		if e != nil {
			err = e
			return linalg.Matrix{}, 0
		}
		s := t.shape
		for len(s) > 2 && s[0] == 1 {
			s = s[1:]
		}
		if len(s) != 2 || s[0] != k || s[1]%linalg.Panel != 0 || t.f == nil {
			err = fmt.Errorf("%w: weight of …/%s has shape %v, want [%d, n·%d]", ErrModel, p+suffix, t.shape, k, linalg.Panel)
			return linalg.Matrix{}, 0
		}
		return linalg.Pack(t.f, s[0], s[1]), s[1]
	}
	lnEps, e := g.scalar(p+"layer_prepostprocess/layer_norm/add", "Add", 1)
	if e != nil {
		return l, e
	}
	l.eps = float32(lnEps)
	get(&l.ln1Scale, "layer_prepostprocess/layer_norm/mul", "Mul", 0, dIn)
	get(&l.ln1Bias, "layer_prepostprocess/layer_norm/add_1", "Add", 1, dIn)
	var nQKV int
	l.qkvW, nQKV = mat("MultiheadAttention/qkv_transform_single/Conv2D", "Conv2D", dIn)
	get(&l.qkvB, "MultiheadAttention/qkv_transform_single/BiasAdd", "BiasAdd", 1, nQKV)
	if err != nil {
		return l, err
	}
	split, err := g.ints(p+"MultiheadAttention/split", "SplitV", 1)
	if err != nil {
		return l, err
	}
	if len(split) != 3 || split[0] != split[1] || split[1] != split[2] || int(split[0])*3 != nQKV {
		return l, fmt.Errorf("%w: layer %d splits q, k, v as %v", ErrModel, i, split)
	}
	l.dAtt = int(split[0])
	heads, err := g.scalar(p+"MultiheadAttention/split_heads/split_last_dimension/Reshape/shape", "Pack", 2)
	if err != nil {
		return l, err
	}
	depth, err := g.scalar(p+"MultiheadAttention/split_heads/split_last_dimension/Reshape/shape", "Pack", 3)
	if err != nil {
		return l, err
	}
	if heads < 1 || int(heads)*int(depth) != l.dAtt {
		return l, fmt.Errorf("%w: layer %d has %v heads of %v for width %d", ErrModel, i, heads, depth, l.dAtt)
	}
	l.heads = int(heads)
	qs, err := g.scalar(p+"MultiheadAttention/mul", "Mul", 1)
	if err != nil {
		return l, err
	}
	l.qScale = float32(qs)
	l.attW, l.dModel = mat("MultiheadAttention/output_transform_single/Conv2D", "Conv2D", l.dAtt)
	get(&l.attB, "MultiheadAttention/output_transform_single/BiasAdd", "BiasAdd", 1, l.dModel)
	if err != nil {
		return l, err
	}
	if g.has(p + "AdjustResidualInput/dense/MatMul") {
		w, _ := mat("AdjustResidualInput/dense/MatMul", "MatMul", dIn)
		l.resW = &w
		get(&l.resB, "AdjustResidualInput/dense/BiasAdd", "BiasAdd", 1, l.dModel)
		if err == nil && w.N() != l.dModel {
			err = fmt.Errorf("%w: layer %d residual projection is %d wide, want %d", ErrModel, i, w.N(), l.dModel)
		}
	} else if dIn != l.dModel {
		err = fmt.Errorf("%w: layer %d maps %d to %d without a residual projection", ErrModel, i, dIn, l.dModel)
	}
	get(&l.ln2Scale, "FFN/layer_prepostprocess/layer_norm/mul", "Mul", 0, l.dModel)
	get(&l.ln2Bias, "FFN/layer_prepostprocess/layer_norm/add_1", "Add", 1, l.dModel)
	l.ff1W, l.dFF = mat("FFN/conv1/Tensordot/MatMul", "MatMul", l.dModel)
	get(&l.ff1B, "FFN/conv1/BiasAdd", "BiasAdd", 1, l.dFF)
	var n2 int
	l.ff2W, n2 = mat("FFN/conv2/Tensordot/MatMul", "MatMul", l.dFF)
	get(&l.ff2B, "FFN/conv2/BiasAdd", "BiasAdd", 1, l.dModel)
	if err == nil && n2 != l.dModel {
		err = fmt.Errorf("%w: layer %d FFN returns %d, want %d", ErrModel, i, n2, l.dModel)
	}
	if err == nil {
		if _, e := g.find(p + "FFN/conv1/Relu"); e != nil {
			err = e
		}
	}
	return l, err
}
