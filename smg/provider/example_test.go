package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/smg-memory/smg/smg/provider"
)

// An OpenAI-compatible server, here a stand-in for a local Ollama, embeds
// texts; the client needs no key for it.
func ExampleOpenAI_Embed() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		data := []map[string]any{}
		for i, s := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": []float32{float32(len(s)), 1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()

	c, err := provider.NewOpenAI(provider.Config{BaseURL: srv.URL + "/v1", EmbedModel: "nomic-embed-text"})
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := c.Embed(context.Background(), []string{"short", "a longer text"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Model(), vecs)
	fmt.Printf("%.3f\n", provider.Cosine(vecs[0], vecs[1]))
	// Output:
	// nomic-embed-text [[5 1] [13 1]]
	// 0.993
}
