package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg/serve"
)

// endpoints are every operation on one memory, with a body each accepts.
var endpoints = []struct {
	method, path string
	body         any
}{
	{"GET", "/v1/memories/%s", nil},
	{"POST", "/v1/memories/%s/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "hello"}}}},
	{"POST", "/v1/memories/%s/context", map[string]any{"question": "what is the vault code?"}},
	{"POST", "/v1/memories/%s/tools/search_memory", map[string]any{"query": "vault"}},
	{"POST", "/v1/memories/%s/tools/get_context", map[string]any{"query": "vault"}},
	{"POST", "/v1/memories/%s/tools/record_turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "hello"}}}},
	{"POST", "/v1/memories/%s/tools/save_memory", map[string]any{"content": "User likes tea", "category": "preference", "reasoning": "said", "scope": "user"}},
	{"POST", "/v1/memories/%s/tools/remove_memory", map[string]any{"id": "fact-x"}},
	{"GET", "/v1/memories/%s/facts", nil},
	{"POST", "/v1/memories/%s/facts", map[string]any{"content": "User likes tea"}},
	{"PATCH", "/v1/memories/%s/facts/fact-x", map[string]any{"pinned": true}},
	{"DELETE", "/v1/memories/%s/facts/fact-x", nil},
	{"DELETE", "/v1/memories/%s/facts?scope=user", nil},
	{"GET", "/v1/memories/%s/file", nil},
	{"GET", "/v1/memories/%s/turns", nil},
	{"POST", "/v1/memories/%s/search", map[string]any{"query": "vault"}},
	{"POST", "/v1/memories/%s/query", map[string]any{"query": "FIND facts"}},
	{"POST", "/v1/memories/%s/fork", map[string]any{"id": "stolen"}},
	{"GET", "/v1/memories/%s/map", nil},
	{"GET", "/v1/memories/%s/nodes/fact-x", nil},
	{"GET", "/v1/memories/%s/nodes/fact-x/neighbours", nil},
	{"GET", "/v1/memories/%s/timeline", nil},
	{"DELETE", "/v1/memories/%s", nil},
}

func path(p, id string) string { return strings.Replace(p, "%s", id, 1) }

// TestTenantsAreApart: a key of one tenant never reads, lists, infers or
// changes anything of another, on any endpoint; a memory of the same id in
// two tenants are two memories.
func TestTenantsAreApart(t *testing.T) {
	srv, store := service(t)
	acme, _, err := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	globex, _, err := store.Keys().Add(context.Background(), serve.Key{Tenant: "globex", Scope: serve.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{acme, globex} {
		if status, body, _ := callAs(t, srv, key, "POST", "/v1/memories", map[string]any{"id": "dana"}); status != http.StatusCreated {
			t.Fatalf("create dana: %d %v", status, body)
		}
	}
	callAs(t, srv, acme, "POST", "/v1/memories", map[string]any{"id": "alex"})
	callAs(t, srv, acme, "POST", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "The vault code is 7319."}}})

	if _, body, _ := callAs(t, srv, globex, "GET", "/v1/memories", nil); !sameIDs(body, "dana") {
		t.Errorf("globex lists %v", body["memories"])
	}
	if _, body, _ := callAs(t, srv, acme, "GET", "/v1/memories", nil); !sameIDs(body, "alex", "dana") {
		t.Errorf("acme lists %v", body["memories"])
	}
	if _, body, _ := callAs(t, srv, globex, "POST", "/v1/memories/dana/context", map[string]any{"question": "what is the vault code?"}); strings.Contains(body["text"].(string), "7319") {
		t.Errorf("globex's dana holds acme's turn: %v", body["text"])
	}
	if _, body, _ := callAs(t, srv, globex, "GET", "/v1/memories/dana", nil); body["turns"] != float64(0) {
		t.Errorf("globex's dana: %v", body)
	}
	// Every endpoint on acme's alex, with globex's key: not found, as a
	// memory that does not exist, and alex unchanged.
	for _, e := range endpoints {
		status, body, h := callAs(t, srv, globex, e.method, path(e.path, "alex"), e.body)
		isProblem(t, "globex "+e.method+" "+e.path, status, body, h, http.StatusNotFound, "no such memory")
		_, nobody, _ := callAs(t, srv, globex, e.method, path(e.path, "nobody"), e.body)
		if nobody["detail"] != strings.Replace(body["detail"].(string), "alex", "nobody", 1) {
			t.Errorf("%s %s: acme's memory answers %q, one that is none %q", e.method, e.path, body["detail"], nobody["detail"])
		}
	}
	if status, body, _ := callAs(t, srv, acme, "GET", "/v1/memories/alex", nil); status != 200 || body["turns"] != float64(0) {
		t.Errorf("alex after globex's calls: %d %v", status, body)
	}
}

func sameIDs(body map[string]any, want ...string) bool {
	js, _ := json.Marshal(body["memories"])
	w, _ := json.Marshal(want)
	return string(js) == string(w)
}

// TestKeys: a store with keys asks every request for one; a key's scope
// and memories bound what it may do; a revoked key is refused at once.
func TestKeys(t *testing.T) {
	srv, store := service(t)
	admin, _, _ := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeAdmin})
	writer, _, _ := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeWrite})
	reader, _, _ := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeRead})
	onlyDana, danaKey, _ := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeWrite, Memories: []string{"dana"}})
	for _, id := range []string{"dana", "alex"} {
		if status, body, _ := callAs(t, srv, writer, "POST", "/v1/memories", map[string]any{"id": id}); status != http.StatusCreated {
			t.Fatalf("create %s: %d %v", id, status, body)
		}
	}

	status, body, h := call(t, srv, "GET", "/v1/memories", nil)
	isProblem(t, "no key", status, body, h, http.StatusUnauthorized, "API key")
	if h.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("no key: WWW-Authenticate %q", h.Get("WWW-Authenticate"))
	}
	status, body, h = callAs(t, srv, "smg_nothing", "GET", "/v1/memories", nil)
	isProblem(t, "a key that is none", status, body, h, http.StatusUnauthorized, "invalid API key")
	if status, _, _ := call(t, srv, "GET", "/healthz", nil); status != 200 {
		t.Errorf("health needs no key: %d", status)
	}
	if status, _, _ := call(t, srv, "GET", "/openapi.json", nil); status != 200 {
		t.Errorf("the OpenAPI document needs no key: %d", status)
	}

	// What each scope may do.
	for _, c := range []struct {
		key         string
		method, url string
		body        any
		status      int
	}{
		{reader, "GET", "/v1/memories/dana", nil, 200},
		{reader, "POST", "/v1/memories/dana/context", map[string]any{"question": "x"}, 200},
		{reader, "POST", "/v1/memories/dana/tools/search_memory", map[string]any{"query": "x"}, 200},
		{reader, "POST", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "x"}}}, 403},
		{reader, "POST", "/v1/memories/dana/tools/record_turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "x"}}}, 403},
		{reader, "POST", "/v1/memories", map[string]any{"id": "bob"}, 403},
		{writer, "DELETE", "/v1/memories/alex", nil, 403},
		{onlyDana, "POST", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "x"}}}, 200},
		{onlyDana, "GET", "/v1/memories/alex", nil, 404},
		{onlyDana, "POST", "/v1/memories", map[string]any{"id": "bob"}, 403},
		{admin, "DELETE", "/v1/memories/alex", nil, 204},
	} {
		status, body, _ := callAs(t, srv, c.key, c.method, c.url, c.body)
		if status != c.status {
			t.Errorf("%s %s: %d %v, want %d", c.method, c.url, status, body, c.status)
		}
	}
	if _, body, _ := callAs(t, srv, onlyDana, "GET", "/v1/memories", nil); !sameIDs(body, "dana") {
		t.Errorf("a key of dana alone lists %v", body["memories"])
	}

	// Revoked, refused at once; listed without its hash.
	if err := store.Keys().Revoke(context.Background(), danaKey.ID); err != nil {
		t.Fatal(err)
	}
	status, body, h = callAs(t, srv, onlyDana, "GET", "/v1/memories/dana", nil)
	isProblem(t, "revoked", status, body, h, http.StatusUnauthorized, "revoked")
	keys, err := store.Keys().List(context.Background())
	if err != nil || len(keys) != 4 {
		t.Fatalf("%d keys: %v", len(keys), err)
	}
	for _, k := range keys {
		if k.Hash != "" || (k.ID == danaKey.ID) == k.Revoked.IsZero() {
			t.Errorf("listed %+v", k)
		}
	}
	if err := store.Keys().Revoke(context.Background(), "nope"); err == nil {
		t.Error("revoked a key that is none")
	}
	if _, _, err := store.Keys().Add(context.Background(), serve.Key{Tenant: "../x", Scope: serve.ScopeRead}); err == nil {
		t.Error("a tenant that is a path")
	}
	if _, _, err := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: "root"}); err == nil {
		t.Error("a scope that is none")
	}
	if _, _, err := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeRead, Expires: time.Now().Add(-time.Hour)}); err == nil {
		t.Error("a key that has expired already")
	}
}

// TestKeyExpires: a key works until it expires, then is refused, saying
// so; the listing says when it expires.
func TestKeyExpires(t *testing.T) {
	srv, store := service(t)
	secret, key, err := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeRead, Expires: time.Now().Add(1500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if status, body, _ := callAs(t, srv, secret, "GET", "/v1/memories", nil); status != 200 {
		t.Fatalf("before it expires: %d %v", status, body)
	}
	keys, err := store.Keys().List(context.Background())
	if err != nil || len(keys) != 1 || !keys[0].Expires.Equal(key.Expires) || key.Expires.IsZero() {
		t.Errorf("listed %+v (%v), want it to expire at %v", keys, err, key.Expires)
	}
	time.Sleep(time.Until(key.Expires) + 50*time.Millisecond)
	status, body, h := callAs(t, srv, secret, "GET", "/v1/memories", nil)
	isProblem(t, "expired", status, body, h, http.StatusUnauthorized, "expired on")
}
