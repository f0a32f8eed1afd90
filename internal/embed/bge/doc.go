// Package bge runs bge-small-zh-v1.5 (BAAI, MIT licence), a Chinese BERT
// sentence embedder, in pure Go: the WordPiece tokenizer of its
// tokenizer.json and the forward pass of its int8-quantized ONNX export
// (fetched by scripts/fetch-bge-zh.sh), matching onnxruntime. Encoder
// serves it to the embed package, with BAAI's query prefix on queries.
//
// It knows nothing about users or storage.
package bge

// Files of the model directory, as scripts/fetch-bge-zh.sh installs them.
const (
	ModelFile     = "bge-small-zh-v1.5-q.onnx"
	TokenizerFile = "bge-small-zh-v1.5-q-tokenizer.json"
)
