// Package linalg holds the float32 kernels the offline embedders share: a
// matrix product over weights packed in column panels (AVX2 with FMA when
// built with GOEXPERIMENT=simd on a CPU that has them, a portable blocked
// kernel otherwise, equal within float32 rounding), dot and axpy.
package linalg
