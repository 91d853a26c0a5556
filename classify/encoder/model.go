package encoder

import (
	"fmt"
	"math"
)

// The shape of USE-lite (read from its TF.js graph, KonaTransformer):
// 256-dimensional token embeddings, a first transformer layer of width 256
// whose residual is projected to 512, a second of width 512, both with four
// heads and a 1536-wide feed-forward; mean pooling over the tokens, a tanh
// layer and L2 normalization. Inputs are cut at maxTokens.
const (
	embedDim  = 256
	modelDim  = 512
	ffnDim    = 1536
	heads     = 4
	maxTokens = 128
	// Dim is the length of the vectors Embed returns.
	Dim = 512

	lnEpsilon = 1e-6
	l2Epsilon = 1e-12
)

type layer struct {
	width            int // of its input
	lnScale, lnBias  []float32
	qkv              packed // width × 3·width
	qkvBias          []float32
	out              packed // width × modelDim
	outBias          []float32
	qScale           float32
	adjust           *packed // width × modelDim, when width ≠ modelDim
	adjustBias       []float32
	ffnScale, ffnLnB []float32
	w1               packed // modelDim × ffnDim
	b1               []float32
	w2               packed // ffnDim × modelDim
	b2               []float32
}

type model struct {
	embeddings matrix // vocabulary × embedDim
	invTime    []float32
	layers     [2]layer
	hidden     packed // modelDim × Dim
	hiddenBias []float32
}

func newModel(t map[string]matrix) (*model, error) {
	var err error
	get := func(name string, rows, cols int) matrix {
		m, ok := t[name]
		if !ok {
			if err == nil {
				err = fmt.Errorf("%w: no tensor %q", ErrWeights, name)
			}
			return matrix{rows: rows, cols: cols, data: make([]float32, rows*cols)}
		}
		if m.rows*m.cols != rows*cols {
			if err == nil {
				err = fmt.Errorf("%w: tensor %q is %d×%d, want %d×%d", ErrWeights, name, m.rows, m.cols, rows, cols)
			}
			return matrix{rows: rows, cols: cols, data: make([]float32, rows*cols)}
		}
		m.rows, m.cols = rows, cols
		return m
	}
	vec := func(name string, n int) []float32 { return get(name, 1, n).data }
	// weight reads an [in, out] matrix and packs it for gemm.
	weight := func(name string, in, out int) packed { return pack(transpose(get(name, in, out))) }

	md := &model{}
	emb, ok := t["embeddings"]
	if !ok || emb.cols != embedDim || emb.rows < 8 {
		return nil, fmt.Errorf("%w: no embedding table of width %d", ErrWeights, embedDim)
	}
	md.embeddings = emb
	md.invTime = vec("timing", embedDim/2)
	for l := range md.layers {
		p := fmt.Sprintf("l%d.", l)
		w := embedDim
		if l > 0 {
			w = modelDim
		}
		ly := &md.layers[l]
		ly.width = w
		ly.lnScale, ly.lnBias = vec(p+"ln.scale", w), vec(p+"ln.bias", w)
		ly.qkv, ly.qkvBias = weight(p+"qkv.w", w, 3*w), vec(p+"qkv.b", 3*w)
		ly.out, ly.outBias = weight(p+"out.w", w, modelDim), vec(p+"out.b", modelDim)
		ly.qScale = vec(p+"qscale", 1)[0]
		if w != modelDim {
			a := weight(p+"adjust.w", w, modelDim)
			ly.adjust, ly.adjustBias = &a, vec(p+"adjust.b", modelDim)
		}
		ly.ffnScale, ly.ffnLnB = vec(p+"ffn.ln.scale", modelDim), vec(p+"ffn.ln.bias", modelDim)
		ly.w1, ly.b1 = weight(p+"ffn.w1", modelDim, ffnDim), vec(p+"ffn.b1", ffnDim)
		ly.w2, ly.b2 = weight(p+"ffn.w2", ffnDim, modelDim), vec(p+"ffn.b2", modelDim)
	}
	md.hidden, md.hiddenBias = weight("hidden.w", modelDim, Dim), vec("hidden.b", Dim)
	if err != nil {
		return nil, err
	}
	return md, nil
}

func transpose(m matrix) matrix {
	t := matrix{rows: m.cols, cols: m.rows, data: make([]float32, len(m.data))}
	for r := 0; r < m.rows; r++ {
		for c := 0; c < m.cols; c++ {
			t.data[c*m.rows+r] = m.data[r*m.cols+c]
		}
	}
	return t
}

// scratch holds the buffers of one forward pass, sized for maxTokens.
type scratch struct {
	x, norm, h, qkv, attn, ffn []float32
	q, k, vt, scores, head     []float32
	pk, pv                     []float32 // k and v packed for gemm
}

func newScratch() *scratch {
	n := maxTokens
	return &scratch{
		x:      make([]float32, n*modelDim),
		norm:   make([]float32, n*modelDim),
		h:      make([]float32, n*modelDim),
		qkv:    make([]float32, n*3*modelDim),
		attn:   make([]float32, n*modelDim),
		ffn:    make([]float32, n*ffnDim),
		q:      make([]float32, n*modelDim/heads),
		k:      make([]float32, n*modelDim/heads),
		vt:     make([]float32, n*modelDim/heads),
		scores: make([]float32, n*n),
		head:   make([]float32, n*modelDim/heads),
		pk:     make([]float32, n*modelDim/heads),
		pv:     make([]float32, n*modelDim/heads),
	}
}

// forward writes the embedding of ids (at most maxTokens of them) to out.
func (md *model) forward(s *scratch, ids []int32, out []float32) {
	n := len(ids)
	// The graph adds the embedding twice: once scattered into the sequence,
	// once with the timing signal (Layer_0/add).
	x := s.x[:n*embedDim]
	half := embedDim / 2
	for i, id := range ids {
		if int(id) >= md.embeddings.rows || id < 0 {
			id = 0
		}
		e := md.embeddings.data[int(id)*embedDim : int(id)*embedDim+embedDim]
		row := x[i*embedDim : i*embedDim+embedDim]
		for c := range e {
			row[c] = 2 * e[c]
		}
		for c, inv := range md.invTime {
			a := float64(float32(i) * inv)
			row[c] += float32(math.Sin(a))
			row[half+c] += float32(math.Cos(a))
		}
	}
	h := s.h[:n*modelDim]
	for l := range md.layers {
		if n == 0 {
			break
		}
		md.layers[l].apply(s, n, x, h)
		x = h
	}
	pooled := make([]float32, modelDim)
	for i := 0; i < n; i++ {
		for c, v := range h[i*modelDim : i*modelDim+modelDim] {
			pooled[c] += v
		}
	}
	div := float32(max(n, 1))
	for c := range pooled {
		pooled[c] /= div
	}
	gemm(out, pooled, 1, &md.hidden, md.hiddenBias)
	var ss float64
	for c, v := range out {
		t := float32(math.Tanh(float64(v)))
		out[c] = t
		ss += float64(t) * float64(t)
	}
	inv := float32(1 / math.Sqrt(max(ss, l2Epsilon)))
	for c := range out {
		out[c] *= inv
	}
}

// apply runs one transformer layer over x (n×width) into h (n×modelDim);
// x and h may be the same buffer when width is modelDim.
func (ly *layer) apply(s *scratch, n int, x, h []float32) {
	w := ly.width
	hd := w / heads
	norm := s.norm[:n*w]
	layerNorm(norm, x, n, w, ly.lnScale, ly.lnBias)
	qkv := s.qkv[:n*3*w]
	gemm(qkv, norm, n, &ly.qkv, ly.qkvBias)
	attn := s.attn[:n*w]
	q, k, vt, sc, head := s.q[:n*hd], s.k[:n*hd], s.vt[:n*hd], s.scores[:n*n], s.head[:n*hd]
	for hh := 0; hh < heads; hh++ {
		for i := 0; i < n; i++ {
			row := qkv[i*3*w : i*3*w+3*w]
			qs := row[hh*hd : hh*hd+hd]
			for c, v := range qs {
				q[i*hd+c] = v * ly.qScale
			}
			copy(k[i*hd:i*hd+hd], row[w+hh*hd:w+hh*hd+hd])
			for c, v := range row[2*w+hh*hd : 2*w+hh*hd+hd] {
				vt[c*n+i] = v
			}
		}
		pk := packInto(s.pk, k, n, hd) // kᵀ: the scores are q·kᵀ
		gemm(sc, q, n, &pk, nil)
		for i := 0; i < n; i++ {
			softmax(sc[i*n : i*n+n])
		}
		pv := packInto(s.pv, vt, hd, n)
		gemm(head, sc, n, &pv, nil)
		for i := 0; i < n; i++ {
			copy(attn[i*w+hh*hd:i*w+hh*hd+hd], head[i*hd:i*hd+hd])
		}
	}
	// The residual: x itself, or x projected to modelDim in the first layer.
	if ly.adjust != nil {
		gemm(h, x, n, ly.adjust, ly.adjustBias)
	} else if &h[0] != &x[0] {
		copy(h, x[:n*modelDim])
	}
	o := s.norm[:n*modelDim] // norm is free again
	gemm(o, attn, n, &ly.out, ly.outBias)
	add(h, o)

	layerNorm(o, h, n, modelDim, ly.ffnScale, ly.ffnLnB)
	f := s.ffn[:n*ffnDim]
	gemm(f, o, n, &ly.w1, ly.b1)
	for i, v := range f {
		f[i] = max(v, 0)
	}
	o2 := s.attn[:n*modelDim]
	gemm(o2, f, n, &ly.w2, ly.b2)
	add(h, o2)
}

func add(dst, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] += src[i]
	}
}

// layerNorm normalizes each of the n rows of x (width w) into dst, as the
// graph does: (x − mean)·scale/√(variance + ε) + bias.
func layerNorm(dst, x []float32, n, w int, scale, bias []float32) {
	scale, bias = scale[:w], bias[:w]
	for i := 0; i < n; i++ {
		row := x[i*w : i*w+w]
		d := dst[i*w : i*w+w]
		var sum float32
		for _, v := range row {
			sum += v
		}
		mean := sum / float32(w)
		var sq float32
		for _, v := range row {
			sq += (v - mean) * (v - mean)
		}
		r := float32(1 / math.Sqrt(float64(sq/float32(w)+lnEpsilon)))
		for c, v := range row {
			d[c] = (v-mean)*(scale[c]*r) + bias[c]
		}
	}
}

func softmax(row []float32) {
	m := row[0]
	for _, v := range row {
		m = max(m, v)
	}
	var sum float32
	for i, v := range row {
		e := float32(math.Exp(float64(v - m)))
		row[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range row {
		row[i] *= inv
	}
}
