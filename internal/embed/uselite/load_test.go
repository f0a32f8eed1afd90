package uselite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeModel writes files into a fresh directory and returns it.
func writeModel(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const tinyVocab = `[["�",0],["<s>",0],["</s>",0],["e1",0],["e2",0],["e3",0],["▁",-1],["a",-2]]`

// TestLoadRejectsBadFiles checks that every kind of broken model directory
// gives an error wrapping ErrModel, never a panic.
func TestLoadRejectsBadFiles(t *testing.T) {
	const node = `{"name":"w","op":"Const"}`
	manifest := func(shape, dtype string) string {
		return `{"modelTopology":{"node":[` + node + `]},"weightsManifest":[{"paths":["s1"],"weights":[{"name":"w","shape":` + shape + `,"dtype":"` + dtype + `"}]}]}`
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"empty dir", map[string]string{}, "model.json"},
		{"not json", map[string]string{"model.json": "{nope", "vocab.json": tinyVocab}, "model.json"},
		{"no nodes", map[string]string{"model.json": `{"modelTopology":{"node":[]}}`, "vocab.json": tinyVocab}, "no graph nodes"},
		{"missing shard", map[string]string{"model.json": manifest("[4]", "float32"), "vocab.json": tinyVocab}, "s1"},
		{"short shard", map[string]string{"model.json": manifest("[4]", "float32"), "s1": "12345678", "vocab.json": tinyVocab}, "needs 16 more"},
		{"long shard", map[string]string{"model.json": manifest("[1]", "float32"), "s1": "12345678", "vocab.json": tinyVocab}, "the manifest 4"},
		{"bad dtype", map[string]string{"model.json": manifest("[1]", "float16"), "s1": "1234", "vocab.json": tinyVocab}, "dtype"},
		{"huge shape", map[string]string{"model.json": manifest("[100000000000]", "float32"), "s1": "1234", "vocab.json": tinyVocab}, "shape"},
		{"path escape", map[string]string{"model.json": strings.Replace(manifest("[1]", "float32"), `"s1"`, `"../s1"`, 1), "vocab.json": tinyVocab}, "not a file name"},
		{"unknown op", map[string]string{"model.json": `{"modelTopology":{"node":[{"name":"x","op":"Magic"}]},"weightsManifest":[]}`, "vocab.json": tinyVocab}, "unsupported ops [Magic]"},
		{"no embedding", map[string]string{"model.json": `{"modelTopology":{"node":[{"name":"x","op":"Const"}]},"weightsManifest":[]}`, "vocab.json": tinyVocab}, "embedding_lookup"},
		{"bad vocab", map[string]string{"model.json": `{"modelTopology":{"node":[{"name":"x","op":"Const"}]},"weightsManifest":[]}`, "vocab.json": `{"a":1}`}, "vocabulary"},
		{"no vocab", map[string]string{"model.json": `{"modelTopology":{"node":[{"name":"x","op":"Const"}]},"weightsManifest":[]}`}, "vocab.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeModel(t, tt.files))
			if !errors.Is(err, ErrModel) {
				t.Fatalf("Load: err = %v, want ErrModel", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// TestLoadRejectsDamagedRealModel damages copies of the real files: a cut
// shard, a shard of zeros' wrong size, a model.json cut in half.
func TestLoadRejectsDamagedRealModel(t *testing.T) {
	mustModel(t)
	names, err := filepath.Glob(filepath.Join(modelDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	damage := map[string]func([]byte) []byte{
		"group1-shard3of7": func(b []byte) []byte { return b[:len(b)-4] },
		"group1-shard7of7": func(b []byte) []byte { return append(b, 0, 0, 0, 0) },
		"model.json":       func(b []byte) []byte { return b[:len(b)/2] },
		"vocab.json":       func(b []byte) []byte { return b[:len(b)/3] },
	}
	for file, f := range damage {
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			for _, src := range names {
				base := filepath.Base(src)
				abs, _ := filepath.Abs(src)
				if base != file {
					if err := os.Symlink(abs, filepath.Join(dir, base)); err != nil {
						t.Fatal(err)
					}
					continue
				}
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, base), f(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Load(dir); !errors.Is(err, ErrModel) {
				t.Fatalf("Load with damaged %s: err = %v, want ErrModel", file, err)
			}
		})
	}
}
