package uselite

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// ErrModel marks a model directory that is missing, unreadable or not the
// graph this package runs.
var ErrModel = errors.New("uselite: bad model")

// maxModelJSON bounds model.json; the real one is 250 KB.
const maxModelJSON = 16 << 20

// graph is a TF.js graph model as model.json describes it, with its weights
// (the graph's constants) read from the shards.
type graph struct {
	nodes  map[string]*graphNode
	consts map[string]*tensor
}

type graphNode struct {
	Name  string   `json:"name"`
	Op    string   `json:"op"`
	Input []string `json:"input"`
}

type weightSpec struct {
	Name         string          `json:"name"`
	Shape        []int           `json:"shape"`
	Dtype        string          `json:"dtype"`
	Quantization json.RawMessage `json:"quantization"`
}

type modelFile struct {
	Format        string `json:"format"`
	ModelTopology struct {
		Node []*graphNode `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []struct {
		Paths   []string     `json:"paths"`
		Weights []weightSpec `json:"weights"`
	} `json:"weightsManifest"`
}

// tensor is a constant: float32 or int32 values in row-major order.
type tensor struct {
	shape []int
	f     []float32
	i     []int32
}

func (t *tensor) size() int {
	n := 1
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// readGraph reads model.json in dir and the weight shards it names.
func readGraph(dir string) (*graph, error) {
	f, err := os.Open(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, maxModelJSON+1))
	if err != nil {
		return nil, fmt.Errorf("%w: model.json: %w", ErrModel, err)
	}
	if len(body) > maxModelJSON {
		return nil, fmt.Errorf("%w: model.json is larger than %d bytes", ErrModel, maxModelJSON)
	}
	var mf modelFile
	if err := json.Unmarshal(body, &mf); err != nil {
		return nil, fmt.Errorf("%w: model.json: %w", ErrModel, err)
	}
	if len(mf.ModelTopology.Node) == 0 {
		return nil, fmt.Errorf("%w: model.json has no graph nodes", ErrModel)
	}
	g := &graph{nodes: map[string]*graphNode{}, consts: map[string]*tensor{}}
	for _, n := range mf.ModelTopology.Node {
		if n == nil || n.Name == "" {
			return nil, fmt.Errorf("%w: model.json: unnamed node", ErrModel)
		}
		g.nodes[n.Name] = n
	}
	for gi, group := range mf.WeightsManifest {
		data, err := readShards(dir, group.Paths)
		if err != nil {
			return nil, err
		}
		off := 0
		for _, w := range group.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("%w: weight %s is quantized, which is not supported", ErrModel, w.Name)
			}
			t := &tensor{shape: w.Shape}
			n := t.size()
			if n < 0 || n > len(data) {
				return nil, fmt.Errorf("%w: weight %s has shape %v", ErrModel, w.Name, w.Shape)
			}
			if off+4*n > len(data) {
				return nil, fmt.Errorf("%w: weight group %d: shards hold %d bytes, weight %s needs %d more from offset %d",
					ErrModel, gi, len(data), w.Name, 4*n, off)
			}
			raw := data[off : off+4*n]
			off += 4 * n
			switch w.Dtype {
			case "float32":
				t.f = make([]float32, n)
				for i := range t.f {
					t.f[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
				}
			case "int32":
				t.i = make([]int32, n)
				for i := range t.i {
					t.i[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
				}
			default:
				return nil, fmt.Errorf("%w: weight %s has dtype %q", ErrModel, w.Name, w.Dtype)
			}
			g.consts[w.Name] = t
		}
		if off != len(data) {
			return nil, fmt.Errorf("%w: weight group %d: shards hold %d bytes, the manifest %d", ErrModel, gi, len(data), off)
		}
	}
	return g, nil
}

// readShards concatenates the weight files of one group. Paths must be
// plain file names inside dir.
func readShards(dir string, paths []string) ([]byte, error) {
	var data []byte
	for _, p := range paths {
		if p == "" || p != filepath.Base(p) || strings.ContainsAny(p, `/\`) || p == "." || p == ".." {
			return nil, fmt.Errorf("%w: weight path %q is not a file name", ErrModel, p)
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrModel, err)
		}
		data = append(data, b...)
	}
	return data, nil
}

// find returns the one node whose name ends with suffix.
func (g *graph) find(suffix string) (*graphNode, error) {
	var found *graphNode
	for name, n := range g.nodes {
		if name == suffix || strings.HasSuffix(name, "/"+suffix) {
			if found != nil {
				return nil, fmt.Errorf("%w: more than one node named …/%s", ErrModel, suffix)
			}
			found = n
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no node named …/%s", ErrModel, suffix)
	}
	return found, nil
}

// has reports whether a node name ends with suffix.
func (g *graph) has(suffix string) bool {
	_, err := g.find(suffix)
	return err == nil
}

// constIn returns the constant feeding input i of the node named …/suffix,
// after checking the node's op.
func (g *graph) constIn(suffix, op string, i int) (*tensor, error) {
	n, err := g.find(suffix)
	if err != nil {
		return nil, err
	}
	if n.Op != op {
		return nil, fmt.Errorf("%w: node %s is %s, want %s", ErrModel, n.Name, n.Op, op)
	}
	if i >= len(n.Input) {
		return nil, fmt.Errorf("%w: node %s has %d inputs", ErrModel, n.Name, len(n.Input))
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(n.Input[i], "^"), ":")
	t, ok := g.consts[name]
	if !ok {
		return nil, fmt.Errorf("%w: input %d of %s (%s) is not a constant", ErrModel, i, n.Name, name)
	}
	return t, nil
}

// floats returns the float32 constant feeding input i of …/suffix, checking its shape.
func (g *graph) floats(suffix, op string, i int, shape ...int) ([]float32, error) {
	t, err := g.constIn(suffix, op, i)
	if err != nil {
		return nil, err
	}
	if t.f == nil || !sameShape(t.shape, shape) {
		return nil, fmt.Errorf("%w: input %d of …/%s: want float32 %v, have %v", ErrModel, i, suffix, shape, t.shape)
	}
	return t.f, nil
}

// scalar returns a one-element constant (float32 or int32) as float64.
func (g *graph) scalar(suffix, op string, i int) (float64, error) {
	t, err := g.constIn(suffix, op, i)
	if err != nil {
		return 0, err
	}
	switch {
	case t.size() == 1 && t.f != nil:
		return float64(t.f[0]), nil
	case t.size() == 1 && t.i != nil:
		return float64(t.i[0]), nil
	}
	return 0, fmt.Errorf("%w: input %d of …/%s is not a scalar (shape %v)", ErrModel, i, suffix, t.shape)
}

// ints returns an int32 constant feeding input i of …/suffix.
func (g *graph) ints(suffix, op string, i int) ([]int32, error) {
	t, err := g.constIn(suffix, op, i)
	if err != nil {
		return nil, err
	}
	if t.i == nil {
		return nil, fmt.Errorf("%w: input %d of …/%s is not int32", ErrModel, i, suffix)
	}
	return t.i, nil
}

// sameShape compares shapes, ignoring leading 1s of a (a Conv2D 1×1 kernel
// [1,1,K,N] is the matrix [K,N]).
func sameShape(a, b []int) bool {
	for len(a) > len(b) && a[0] == 1 {
		a = a[1:]
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
