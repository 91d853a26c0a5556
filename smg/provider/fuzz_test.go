package provider_test

import (
	"math"
	"testing"

	"github.com/smg-memory/smg/smg/provider"
)

// FuzzDecodeEmbeddings checks that no answer makes the decoder panic, and
// that what it accepts is what was asked for: n vectors of one length,
// every value finite.
func FuzzDecodeEmbeddings(f *testing.F) {
	for _, s := range []struct {
		body string
		n    int
	}{
		{`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.2,0.3]}],"model":"m"}`, 1},
		{`{"data":[{"index":1,"embedding":[1,2]},{"index":0,"embedding":[3,4]}]}`, 2},
		{`{"data":[{"index":0,"embedding":"AACAPgAAgL8AAAA/AAAAAA=="}]}`, 1},
		{`{"data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]}`, 2},
		{`{"data":[{"embedding":[1]}]}`, 1},
		{`{"data":[{"index":-1,"embedding":[1]}]}`, 1},
		{`{"data":[{"index":0,"embedding":[1e39]}]}`, 1},
		{`{"data":[{"index":0,"embedding":"AAA="}]}`, 1},
		{`{"data":null}`, 0},
		{`{"error":{"message":"rate limited"}}`, 1},
		{`[]`, 0},
		{`null`, 0},
		{``, 1},
	} {
		f.Add([]byte(s.body), s.n)
	}
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1<<12 {
			return
		}
		vecs, err := provider.DecodeEmbeddings(body, n)
		if err != nil {
			if vecs != nil {
				t.Fatalf("vectors %v with error %v", vecs, err)
			}
			_ = err.Error()
			return
		}
		if len(vecs) != n {
			t.Fatalf("%d vectors for %d", len(vecs), n)
		}
		for i, v := range vecs {
			if len(v) == 0 || len(v) != len(vecs[0]) {
				t.Fatalf("vector %d has %d values, vector 0 %d", i, len(v), len(vecs[0]))
			}
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("vector %d holds %v", i, x)
				}
			}
		}
	})
}
