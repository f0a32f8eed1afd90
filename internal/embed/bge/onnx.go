package bge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The ONNX protobuf is read with a small hand-written decoder of the few
// fields this package needs (onnx.proto3: ModelProto.graph = 7;
// GraphProto.node = 1, initializer = 5; NodeProto.input = 1, output = 2,
// op_type = 4, attribute = 5; AttributeProto.name = 1, t = 5;
// TensorProto.dims = 1, data_type = 2, float_data = 4, int32_data = 5,
// int64_data = 7, name = 8, raw_data = 9).

// ONNX TensorProto data types used by the model.
const (
	onnxFloat = 1
	onnxUint8 = 2
	onnxInt8  = 3
	onnxInt32 = 6
	onnxInt64 = 7
)

// tensor is an initializer, its values widened to float32 (exact for the
// 8-bit and small integer types of this model).
type tensor struct {
	name  string
	dims  []int64
	dtype int32
	f     []float32
}

type node struct {
	op      string
	inputs  []string
	outputs []string
	value   *tensor // a Constant's "value" attribute
}

// graph holds the nodes and the initializers of an ONNX graph. The value
// of each Constant node is among the initializers too, named by the
// node's output.
type graph struct {
	nodes []node
	inits map[string]*tensor
}

var errProto = errors.New("bge: malformed ONNX protobuf")

// fields calls fn for each field of the protobuf message b.
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errProto
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var u uint32
			u, n = protowire.ConsumeFixed32(b)
			x = uint64(u)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return errProto
		}
		b = b[n:]
		if err := fn(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}

// parseGraph decodes the graph of an ONNX ModelProto.
func parseGraph(model []byte) (*graph, error) {
	var gb []byte
	err := fields(model, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num == 7 && typ == protowire.BytesType {
			gb = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if gb == nil {
		return nil, fmt.Errorf("bge: ONNX model has no graph")
	}
	g := &graph{inits: map[string]*tensor{}}
	err = fields(gb, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			n, err := parseNode(v)
			if err != nil {
				return err
			}
			g.nodes = append(g.nodes, n)
			if n.op == "Constant" && n.value != nil && len(n.outputs) == 1 {
				n.value.name = n.outputs[0]
				g.inits[n.value.name] = n.value
			}
		case 5:
			t, err := parseTensor(v)
			if err != nil {
				return err
			}
			g.inits[t.name] = t
		}
		return nil
	})
	return g, err
}

func parseNode(b []byte) (node, error) {
	var n node
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			n.inputs = append(n.inputs, string(v))
		case 2:
			n.outputs = append(n.outputs, string(v))
		case 4:
			n.op = string(v)
		case 5:
			t, err := parseValueAttribute(v)
			if err != nil {
				return err
			}
			if t != nil {
				n.value = t
			}
		}
		return nil
	})
	return n, err
}

// parseValueAttribute returns the tensor of an AttributeProto named
// "value" (a Constant's), or nil for any other attribute.
func parseValueAttribute(b []byte) (*tensor, error) {
	var name string
	var tb []byte
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			name = string(v)
		case 5:
			tb = v
		}
		return nil
	})
	if err != nil || name != "value" || tb == nil {
		return nil, err
	}
	return parseTensor(tb)
}

func parseTensor(b []byte) (*tensor, error) {
	t := &tensor{}
	var raw []byte
	var typed []float32
	// packed reads a packed repeated field, or one unpacked element.
	packed := func(typ protowire.Type, v []byte, x uint64, elem func([]byte) (float32, int)) error {
		if typ != protowire.BytesType {
			var buf [8]byte
			binary.LittleEndian.PutUint64(buf[:], x)
			if typ == protowire.VarintType {
				typed = append(typed, float32(int64(x)))
				return nil
			}
			f, _ := elem(buf[:])
			typed = append(typed, f)
			return nil
		}
		for len(v) > 0 {
			f, n := elem(v)
			if n < 0 {
				return errProto
			}
			typed = append(typed, f)
			v = v[n:]
		}
		return nil
	}
	varint := func(v []byte) (float32, int) {
		x, n := protowire.ConsumeVarint(v)
		return float32(int64(x)), n
	}
	fixed32 := func(v []byte) (float32, int) {
		if len(v) < 4 {
			return 0, -1
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(v)), 4
	}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch num {
		case 1:
			if typ == protowire.BytesType {
				for len(v) > 0 {
					d, n := protowire.ConsumeVarint(v)
					if n < 0 {
						return errProto
					}
					t.dims = append(t.dims, int64(d))
					v = v[n:]
				}
			} else {
				t.dims = append(t.dims, int64(x))
			}
		case 2:
			t.dtype = int32(x)
		case 4:
			return packed(typ, v, x, fixed32)
		case 5, 7:
			return packed(typ, v, x, varint)
		case 8:
			t.name = string(v)
		case 9:
			raw = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	size := int64(1)
	for _, d := range t.dims {
		size *= d
	}
	if raw == nil {
		t.f = typed
	} else {
		t.f = make([]float32, 0, size)
		switch t.dtype {
		case onnxFloat:
			for i := 0; i+4 <= len(raw); i += 4 {
				t.f = append(t.f, math.Float32frombits(binary.LittleEndian.Uint32(raw[i:])))
			}
		case onnxUint8:
			for _, c := range raw {
				t.f = append(t.f, float32(c))
			}
		case onnxInt8:
			for _, c := range raw {
				t.f = append(t.f, float32(int8(c)))
			}
		case onnxInt32:
			for i := 0; i+4 <= len(raw); i += 4 {
				t.f = append(t.f, float32(int32(binary.LittleEndian.Uint32(raw[i:]))))
			}
		case onnxInt64:
			for i := 0; i+8 <= len(raw); i += 8 {
				t.f = append(t.f, float32(int64(binary.LittleEndian.Uint64(raw[i:]))))
			}
		default:
			return nil, fmt.Errorf("bge: initializer %q has data type %d", t.name, t.dtype)
		}
	}
	if int64(len(t.f)) != size {
		return nil, fmt.Errorf("bge: initializer %q has %d values for shape %v", t.name, len(t.f), t.dims)
	}
	return t, nil
}
