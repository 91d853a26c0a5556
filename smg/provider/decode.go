package provider

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// embedResponse is the answer of POST /embeddings.
type embedResponse struct {
	Data []struct {
		Index     *int            `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Error json.RawMessage `json:"error"`
}

// DecodeEmbeddings reads the body of an answer to POST /embeddings that
// asked for n vectors: {"data": [{"index": i, "embedding": [...]}, ...]},
// in any order, each index from 0 to n-1 once. An embedding may also be
// the base64 of little-endian float32 values, as OpenAI sends it when
// asked for encoding_format "base64". It returns the vectors by index. It
// fails, and never panics, on anything else: a body that is not JSON, a
// count other than n, an index missing, repeated or out of range, vectors
// empty or of different lengths, values that are not finite float32s, or
// an "error" member in place of "data".
func DecodeEmbeddings(body []byte, n int) ([][]float32, error) {
	var r embedResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("not the JSON of an embeddings response: %w", err)
	}
	if r.Data == nil && len(r.Error) > 0 && !bytes.Equal(r.Error, []byte("null")) {
		return nil, fmt.Errorf("an error in place of data: %s", excerpt(r.Error))
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("%d embeddings for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	dims := 0
	for i, d := range r.Data {
		if d.Index == nil {
			return nil, fmt.Errorf("embedding %d has no index", i)
		}
		k := *d.Index
		if k < 0 || k >= n {
			return nil, fmt.Errorf("embedding %d has index %d, outside [0, %d)", i, k, n)
		}
		if out[k] != nil {
			return nil, fmt.Errorf("index %d appears twice", k)
		}
		v, err := vector(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("embedding of index %d: %w", k, err)
		}
		if len(v) == 0 {
			return nil, fmt.Errorf("embedding of index %d is empty", k)
		}
		if dims == 0 {
			dims = len(v)
		} else if len(v) != dims {
			return nil, fmt.Errorf("embedding of index %d has %d values, another %d", k, len(v), dims)
		}
		out[k] = v
	}
	return out, nil
}

// vector reads one embedding: an array of numbers, or a base64 string.
func vector(raw json.RawMessage) ([]float32, error) {
	raw = bytes.TrimSpace(raw)
	var v []float32
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return nil, errors.New("missing")
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("not base64: %w", err)
		}
		if v, err = spec.DecodeVector(b); err != nil {
			return nil, err
		}
	default:
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
	}
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("value %d is not a finite number", j)
		}
	}
	return v, nil
}

// chatResponse is the answer of POST /chat/completions.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
}

// decodeChat returns the text of the first choice of a chat completion.
func decodeChat(body []byte) (string, error) {
	var r chatResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("not the JSON of a chat completion: %w", err)
	}
	if len(r.Choices) == 0 {
		if len(r.Error) > 0 && !bytes.Equal(r.Error, []byte("null")) {
			return "", fmt.Errorf("an error in place of choices: %s", excerpt(r.Error))
		}
		return "", errors.New("no choices")
	}
	c := r.Choices[0].Message.Content
	if c == nil || strings.TrimSpace(*c) == "" {
		return "", errors.New("the first choice has no content")
	}
	return strings.TrimSpace(*c), nil
}
