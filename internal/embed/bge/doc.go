// Package bge runs small BERT sentence embedders in pure Go: the WordPiece
// tokenizer of their tokenizer.json and the forward pass of their
// int8-quantized ONNX export, matching onnxruntime. It runs the models of
// Specs: bge-small-zh-v1.5 (BAAI, MIT licence; Chinese, CLS pooling,
// fetched by scripts/fetch-bge-zh.sh) and e5-small-v2 (intfloat, MIT
// licence; English, mean pooling, fetched by scripts/fetch-e5.sh). The
// architecture (hidden size, heads, feed-forward size, layers, attention
// scale) is read from the graph; Load tells the models apart by their
// files. Encoder serves a model to the embed package, with the model's
// query and document prefixes.
//
// It knows nothing about users or storage.
package bge

// Files of the model directories, as scripts/fetch-bge-zh.sh and
// scripts/fetch-e5.sh install them.
const (
	ModelFile     = "bge-small-zh-v1.5-q.onnx"
	TokenizerFile = "bge-small-zh-v1.5-q-tokenizer.json"

	E5ModelFile     = "e5-small-v2-q.onnx"
	E5TokenizerFile = "e5-small-v2-q-tokenizer.json"
)
