package uselite

import "github.com/recalld/recalld/internal/embed/internal/linalg"

// Kernel reports which matrix kernel runs: "avx2-fma" or "scalar".
func Kernel() string { return linalg.Kernel() }
