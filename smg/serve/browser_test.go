package serve_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/smg/serve"
)

// browserEnv, when set, makes a missing Chromium a failure rather than a
// skip: .ci/run installs Debian's chromium and sets it.
const browserEnv = "SMG_TEST_BROWSER"

// screenshotsEnv names a folder the browser tests write their
// screenshots to (the README's are made so); a test's own folder
// otherwise.
const screenshotsEnv = "SMG_SCREENSHOTS"

// chromium is the path of a Chromium, or "".
func chromium() string {
	if p := os.Getenv("SMG_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// page is a headless Chromium tab of a test, and the console errors and
// uncaught exceptions it met.
type page struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	problems []string
	shots    string
}

// newPage starts a headless Chromium for the test, or skips it when there
// is none. The test fails, at its end, on any console error or uncaught
// exception of the page, but for the browser's own line about a request
// the service refused (401, 403), which a test may provoke.
func newPage(t *testing.T) *page {
	t.Helper()
	path := chromium()
	if path == "" {
		if os.Getenv(browserEnv) != "" {
			t.Fatal("no Chromium found, and " + browserEnv + " is set: apt-get install chromium")
		}
		t.Skip("no Chromium: apt-get install chromium (.ci/run does), or set SMG_CHROMIUM")
	}
	// The browser's temporary files (its profile, the folder of its
	// singleton socket, which a browser killed at the end of a test leaves
	// in /tmp) go in the test's own folder, removed after it. A browser
	// that dies as it starts is started again, twice at most: one start
	// in .ci/run crashed before it listened (Chromium's own crash report,
	// "chrome failed to start"), and the same tests passed on each run
	// after; that says nothing of the interface.
	var tmp string
	var ctx context.Context
	var cancelTab, cancelAlloc context.CancelFunc
	for attempt := 1; ; attempt++ {
		tmp = t.TempDir()
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1400, 900),
			chromedp.NoSandbox, chromedp.Flag("disable-gpu", true), chromedp.Env("TMPDIR="+tmp), chromedp.UserDataDir(filepath.Join(tmp, "profile")))
		var actx context.Context
		actx, cancelAlloc = chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelTab = chromedp.NewContext(actx)
		err := chromedp.Do(ctx) // starts the browser
		if err == nil {
			break
		}
		cancelTab()
		cancelAlloc()
		if attempt == 3 {
			t.Fatalf("starting %s: %v", path, err)
		}
		t.Logf("starting %s (attempt %d): %v", path, attempt, err)
	}
	p := &page{t: t, ctx: ctx, shots: os.Getenv(screenshotsEnv)}
	if p.shots == "" {
		p.shots = t.TempDir()
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "org.chromium.Chromium.*")); len(left) == 0 {
		t.Errorf("the browser keeps its temporary files elsewhere than in %s", tmp)
	}
	messages := chromedp.Console(ctx)
	read := make(chan struct{})
	go func() {
		defer close(read)
		for m, err := range messages {
			if err != nil {
				return
			}
			refused := m.Source == "network" && (strings.Contains(m.Text, "status of 401") || strings.Contains(m.Text, "status of 403"))
			if (m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException) && !refused {
				p.mu.Lock()
				p.problems = append(p.problems, fmt.Sprintf("%s %s:%d: %s", m.Type, m.URL, m.Line+1, m.Text))
				p.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		<-read
		for _, e := range p.problems {
			t.Errorf("the page: %s", e)
		}
	})
	return p
}

// do runs steps within 30 s, failing the test on an error.
func (p *page) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// get runs an action that returns a value within 30 s.
func get[T any](p *page, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// eval evaluates js in the page.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	return get(p, js, chromedp.Evaluate[T](js))
}

// shot writes a screenshot of the page as name.png.
func (p *page) shot(name string) {
	p.t.Helper()
	png := get(p, "screenshot "+name, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(p.shots, name+".png"), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// testID is the CSS selector of the element of a data-testid.
func testID(id string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + id + `"]`) }

// importGolden imports the golden memory of checkout.json as id.
func importGolden(t *testing.T, store serve.Store, id string) {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/conversations/checkout.smg")
	if err != nil {
		t.Fatal(err)
	}
	_, done, err := store.Import(context.Background(), serve.Tenant, id, raw)
	if err != nil {
		t.Fatal(err)
	}
	done()
}

// facts are the contents of the memory's current facts, read by another
// server.
func (s *testStore) facts(t *testing.T, id string) []string {
	t.Helper()
	m, err := s.memory(t, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range m.Facts(smg.FactFilter{}) {
		out = append(out, smg.FactText(n))
	}
	return out
}

// ready waits for the view's flag (body[data-NAME-ready="1"]).
// postJSON posts body to url and fails the test unless it is accepted.
func postJSON(t *testing.T, url, body string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("POST %s: %s: %s", url, res.Status, b)
	}
}

func ready(name string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(`body[data-` + name + `-ready="1"]`))
}

// factRow is the selector of an element of the row of a fact.
func factRow(id, what string) chromedp.CSS {
	return chromedp.CSS(`[data-testid="fact-row"][data-id="` + id + `"] [data-testid="` + what + `"]`)
}

const (
	factGo   = "fact-dana-prefers-go-for-all-backend-work"
	factShop = "fact-dana-is-working-on-the-shop-with-their"
)

// TestWebViews drives the web interface in a headless Chromium on the
// memory of checkout.json: the map draws, a node's detail opens with the
// mouse and a node found by a search expands; the facts are listed, edited
// and forgotten (and the store changes); the timeline shows the supersede
// chain; a question's context shows its items and what did not fit; with
// a key that may only read, a forget is refused, the page says so, and the
// store does not change. No console error occurs. Screenshots of each view
// are written.
func TestWebViews(t *testing.T) {
	p := newPage(t)
	store := newStore(t)
	importGolden(t, store, "checkout")
	srv := httptest.NewServer(serve.New(store, nil))
	defer srv.Close()
	base := srv.URL + "/ui/"

	// The map, and a node's detail.
	p.do("the map", chromedp.Navigate(base+"#/map?m=checkout"), ready("map"))
	if n := eval[int](p, `window.smgTimings.nodes`); n != 16 {
		t.Errorf("the map drew %d nodes, want the 16 current with an edge", n)
	}
	readableMap(t, p, "checkout")
	p.do("a click on the most important node", clickNode(p, 0), chromedp.WaitVisible(testID("node-detail")))
	if label := get(p, "the detail's label", chromedp.Text(testID("detail-label"))); !strings.Contains(label, "Dana prefers Go") {
		t.Errorf("the detail of the most important node: %q", label)
	}
	p.shot("map")

	// A search, then a node's neighbourhood added.
	p.do("a search", chromedp.SendKeys(testID("map-search"), "PostgreSQL"), ready("map"))
	found := eval[int](p, `window.smgTimings.nodes`)
	if found == 0 || found >= 16 {
		t.Fatalf("the search for PostgreSQL drew %d nodes", found)
	}
	p.do("expand the PostgreSQL decision", chromedp.Evaluate[chromedp.Void](`window.smgMap.open('decision-postgresql')`, chromedp.EvalAwaitPromise),
		chromedp.WaitVisible(testID("expand")), chromedp.Click(testID("expand")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-map-expanded="decision-postgresql"]`)))
	if after := eval[int](p, `window.smgMap.nodes().length`); after <= found {
		t.Errorf("expanded: %d nodes on the map, %d before", after, found)
	}

	// The facts: edit one, forget the other.
	p.do("the facts", chromedp.Click(testID("detail-close")), chromedp.Navigate(base+"#/facts?m=checkout"), ready("facts"))
	if n := eval[int](p, `document.querySelectorAll('[data-testid="fact-row"]').length`); n != 2 {
		t.Fatalf("%d facts listed, want 2", n)
	}
	p.shot("facts")
	if got := eval[string](p, `document.querySelector('[data-testid="fact-row"][data-id="`+factGo+`"] [data-testid="fact-origin"]').textContent`); got != "saved by the user" {
		t.Errorf("the origin of a fact the user asked to remember: %q", got)
	}
	edited := "Dana prefers Go and Rust for backend work."
	p.do("edit a fact", chromedp.Click(factRow(factGo, "fact-edit")), chromedp.SetValue(factRow(factGo, "fact-edit-input"), edited),
		chromedp.Click(factRow(factGo, "fact-save")), ready("facts"))
	p.do("forget a fact", chromedp.Click(factRow(factShop, "fact-forget")), chromedp.Click(factRow(factShop, "fact-forget")), ready("facts"),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="fact-row"][data-id="`+factShop+`"]`)))
	if got := store.facts(t, "checkout"); len(got) != 1 || got[0] != edited {
		t.Errorf("the store's facts after an edit and a forget: %q", got)
	}

	// The timeline.
	p.do("the timeline", chromedp.Navigate(base+"#/timeline?m=checkout"), ready("timeline"))
	if n := eval[int](p, `document.querySelectorAll('[data-testid="timeline-event"]').length`); n < 3 {
		t.Errorf("%d events on the timeline", n)
	}
	if chain := get(p, "the chain", chromedp.Text(testID("chain"))); !strings.Contains(chain, "SQLite") || !strings.Contains(chain, "PostgreSQL") {
		t.Errorf("the supersede chain: %q", chain)
	}
	p.shot("timeline")

	// A conflict: a turn that denies what another said done. The facts
	// and the timeline say which are in conflict.
	postJSON(t, srv.URL+"/v1/memories/checkout/turns", `{"conversation": "later", "turns": [
		{"role": "user", "content": "I'm trying to implement the basic homepage route with Flask, and I have managed to return static HTML, tested at about 150ms.", "time": "2026-03-01T10:00:00Z"},
		{"role": "user", "content": "I have never written any Flask routes or handled HTTP requests in this project.", "time": "2026-03-02T10:00:00Z"}]}`)
	p.do("the facts with a conflict", chromedp.Navigate(base+"#/facts?m=checkout"), chromedp.Reload(), ready("facts"))
	if n := eval[int](p, `document.querySelectorAll('[data-testid="fact-conflict"]').length`); n != 2 {
		t.Errorf("%d facts say they are in conflict, want 2", n)
	}
	p.do("the timeline with a conflict", chromedp.Navigate(base+"#/timeline?m=checkout"), chromedp.Reload(), ready("timeline"))
	if c := get(p, "the conflict", chromedp.Text(testID("conflict"))); !strings.Contains(c, "Flask") {
		t.Errorf("the timeline's conflict: %q", c)
	}

	// A question's context, at a budget too small for all it found.
	p.do("ask", chromedp.Navigate(base+"#/ask?m=checkout"), chromedp.Reload(), chromedp.WaitVisible(testID("ask-question")),
		chromedp.SetValue(testID("ask-question"), "How did we fix the webhook returning 401 in production?"),
		chromedp.SetValue(testID("ask-budget"), "300"), chromedp.Click(testID("ask-go")), ready("ask"))
	if text := get(p, "the context", chromedp.Text(testID("ask-text"))); !strings.Contains(text, "ConstructEvent") {
		t.Errorf("the context: %.300q", text)
	}
	if n := eval[int](p, `document.querySelectorAll('[data-testid="ask-items"] tbody tr').length`); n == 0 {
		t.Error("no item of the context listed")
	}
	// A node's item is named by its label (the page, loaded again, has
	// seen no node).
	if names := eval[[]string](p, `[...document.querySelectorAll('[data-testid="ask-node"]')].map(b => b.textContent)`); len(names) == 0 || slices.ContainsFunc(names, func(n string) bool {
		return strings.HasPrefix(n, "decision-") || strings.HasPrefix(n, "problem-") || strings.HasPrefix(n, "solution-")
	}) {
		t.Errorf("the context's nodes are named %q", names)
	}
	if n := eval[int](p, `document.querySelectorAll('[data-testid="ask-left-items"] > *').length`); n == 0 {
		t.Error("nothing listed as left out at 300 tokens")
	}
	p.shot("ask")

	// A key that may only read: the forget is refused and says why.
	before := store.facts(t, "checkout")
	read := store.addKey(t, serve.Tenant, serve.ScopeRead)
	p.do("the facts with a read-only key", chromedp.Navigate(base+"#/facts?m=checkout"),
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem('smgKey', `+"`"+read+"`"+`)`), chromedp.Reload(), ready("facts"),
		chromedp.Click(factRow(factGo, "fact-forget")), chromedp.Click(factRow(factGo, "fact-forget")),
		chromedp.WaitVisible(testID("message")))
	if msg := get(p, "the message", chromedp.Text(testID("message-text"))); !strings.Contains(msg, "not write") {
		t.Errorf("a forget with a read-only key says %q", msg)
	}
	if got := store.facts(t, "checkout"); !slices.Equal(got, before) {
		t.Errorf("after a read-only key's forget, the store's facts are %q, not %q", got, before)
	}
}

// benchMemory is a memory of turns read from the files of ../shared/bench
// that patterns match (a pattern "FILE#N" reads the N-th conversation of
// the file alone), repeated until it holds n turns (all of them when n is
// 0), without vectors, as the bytes of its .smg file.
func benchMemory(t *testing.T, n int, patterns ...string) []byte {
	t.Helper()
	var names []string
	only := map[string]int{} // a file's one conversation: "beam-dev.json#1"
	for _, p := range patterns {
		p, nth, _ := strings.Cut(p, "#")
		found, err := filepath.Glob(filepath.Join("../../../shared/bench", p))
		if k, err := strconv.Atoi(nth); err == nil {
			for _, f := range found {
				only[f] = k
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, found...)
	}
	if len(names) == 0 {
		t.Skip("no ../shared/bench: the large memories' timings are taken where it is")
	}
	var turns []smg.Turn
	for _, name := range names {
		res, err := importer.ReadFile(name, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range res.Conversations {
			if k := only[name]; k == 0 || k == i+1 {
				turns = append(turns, c.Turns...)
			}
		}
	}
	if n > 0 {
		all := turns
		for len(turns) < n {
			turns = append(turns, all...)
		}
		turns = turns[:n]
	}
	m := smg.New(&smg.Options{NoVectors: true})
	defer m.Close()
	if _, err := m.IngestAll(context.Background(), turns); err != nil {
		t.Fatal(err)
	}
	raw, err := m.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestWebLargeMaps opens the map of two large memories (aider 02's
// history; 10,000 turns of LoCoMo, BEAM and every aider history, thousands
// of nodes), clicks a node and expands it: it logs how long each took to
// become interactive in the browser (BENCHMARKS.md has them; a test
// asserts no time). It builds the memories (a minute), so it runs where
// the browser tests are asked for (SMG_TEST_BROWSER, as .ci/run does).
func TestWebLargeMaps(t *testing.T) {
	if os.Getenv(browserEnv) == "" {
		t.Skip("builds two large memories: set " + browserEnv + " (.ci/run does)")
	}
	p := newPage(t)
	store := newStore(t)
	for id, raw := range map[string][]byte{
		"aider-02":  benchMemory(t, 0, "aider-dev/02_*.md"),
		"beam-01":   benchMemory(t, 0, "beam-dev.json#1"),
		"mixed-10k": benchMemory(t, 10000, "locomo-dev.json", "beam-dev.json", "aider-dev/[0-9]*.md"),
	} {
		if _, done, err := store.Import(context.Background(), serve.Tenant, id, raw); err != nil {
			t.Fatal(err)
		} else {
			done()
		}
	}
	srv := httptest.NewServer(serve.New(store, nil))
	defer srv.Close()
	for _, id := range []string{"aider-02", "beam-01", "mixed-10k"} {
		p.do("a blank page", chromedp.Navigate("about:blank"))
		start := time.Now()
		p.do("the map of "+id, chromedp.Navigate(srv.URL+"/ui/#/map?m="+id), chromedp.WaitVisible(chromedp.CSS(`body[data-map-ready="1"]`)))
		drawn := time.Since(start)
		if id != "mixed-10k" {
			readableMap(t, p, id)
		}
		nodes := eval[int](p, `window.smgTimings.nodes`)
		all := eval[int](p, `window.smgTimings.all || 0`) // the memory's nodes
		clicked := time.Now()
		p.do("a node of "+id, clickNode(p, 0), chromedp.WaitVisible(testID("node-detail")))
		detail := time.Since(clicked)
		// The most important node with neighbours off the map, when the
		// map does not show them all.
		before := eval[int](p, `window.smgMap.nodes().length`)
		offMap := eval[int](p, `window.smgCy.nodes().filter(n => n.data('degree') > n.connectedEdges().length).length`)
		if unlinked := eval[int](p, `window.smgTimings.unlinked || 0`); all > nodes+unlinked && offMap == 0 {
			t.Errorf("%s: %d nodes of %d on the map, and none with a neighbour off it", id, nodes, all)
		}
		if offMap > 0 {
			expanded := time.Now()
			p.do("expand a node of "+id, chromedp.Evaluate[chromedp.Void](`(() => {
				const n = window.smgCy.nodes().filter(n => n.data('degree') > n.connectedEdges().length)
					.sort((a, b) => b.data('importance') - a.data('importance'))[0];
				return window.smgMap.expand(n.id());
			})()`, chromedp.EvalAwaitPromise))
			after := eval[int](p, `window.smgMap.nodes().length`)
			if after <= before {
				t.Errorf("%s: expanded, %d nodes on the map, %d before", id, after, before)
			}
			t.Logf("%s: a node expanded to %d nodes on the map in %d ms", id, after, time.Since(expanded).Milliseconds())
		}
		t.Logf("%s: %d nodes of %d drawn and interactive %d ms after the page was asked for (the page's own count: %v ms); a node's detail %d ms after its click",
			id, nodes, all, drawn.Milliseconds(), eval[float64](p, `window.smgTimings.pageMs`), detail.Milliseconds())
		p.shot("map-" + id)
		// The other views, on the same memory.
		for _, v := range []struct {
			view  string
			steps []chromedp.Action[chromedp.Void]
		}{
			{"facts", nil},
			{"timeline", nil},
			{"ask", []chromedp.Action[chromedp.Void]{chromedp.WaitVisible(testID("ask-question")),
				chromedp.SetValue(testID("ask-question"), "What did we decide about the database?"), chromedp.Click(testID("ask-go"))}},
		} {
			// The flag of the view as the other memory left it, unset.
			p.do("unset "+v.view, chromedp.Evaluate[chromedp.Void](`delete document.body.dataset.`+v.view+`Ready`))
			start := time.Now()
			steps := append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(srv.URL + "/ui/#/" + v.view + "?m=" + id)}, v.steps...)
			p.do("the "+v.view+" of "+id, append(steps, ready(v.view))...)
			t.Logf("%s: the %s view ready in %d ms", id, v.view, time.Since(start).Milliseconds())
		}
	}
}

// readableMap checks the map drawn: at most a tenth of its nodes without
// an edge on it, no label drawn over another at the zoom it fits at, and
// the nodes grouped by what they belong to (four in five nearer their hub
// than any other).
func readableMap(t *testing.T, p *page, what string) {
	t.Helper()
	if alone := eval[float64](p, `(() => {
		const ns = window.smgCy.nodes();
		return ns.length ? ns.filter((n) => n.connectedEdges().length === 0).length / ns.length : 0;
	})()`); alone > 0.10 {
		t.Errorf("%s: %.0f%% of the map's nodes have no edge on it", what, 100*alone)
	}
	overlaps := eval[[]string](p, `(() => {
		const shown = window.smgCy.nodes().filter((n) => n.style('label') !== '' && n.visible());
		const boxes = shown.map((n) => [n.id(), n.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false })]);
		const out = [];
		for (let i = 0; i < boxes.length; i++) {
			for (let j = i + 1; j < boxes.length; j++) {
				const a = boxes[i][1], b = boxes[j][1];
				if (a.w > 0 && b.w > 0 && a.x1 < b.x2 - 1 && b.x1 < a.x2 - 1 && a.y1 < b.y2 - 1 && b.y1 < a.y2 - 1) out.push(boxes[i][0] + ' / ' + boxes[j][0]);
			}
		}
		return out;
	})()`)
	if len(overlaps) > 0 {
		t.Errorf("%s: %d pairs of labels drawn over each other, as %q", what, len(overlaps), overlaps[:min(3, len(overlaps))])
	}
	// Grouped by what they belong to: a node is nearer the hub it
	// belongs to than any other hub.
	grouped := eval[[]int](p, `(() => {
		const cy = window.smgCy;
		const hubs = cy.nodes().filter((n) => n.data('belongs') === n.id());
		let near = 0, all = 0;
		cy.nodes().forEach((n) => {
			const b = n.data('belongs');
			if (!b || b === n.id() || cy.getElementById(b).empty()) return;
			const p = n.position(), d = (h) => Math.hypot(h.position('x') - p.x, h.position('y') - p.y);
			const own = d(cy.getElementById(b));
			all++;
			if (hubs.every((h) => h.id() === b || d(h) >= own)) near++;
		});
		return [near, all, hubs.length];
	})()`)
	t.Logf("%s: %d of %d nodes nearer the hub they belong to than any other, %d hubs", what, grouped[0], grouped[1], grouped[2])
	if grouped[1] == 0 || float64(grouped[0]) < 0.8*float64(grouped[1]) {
		t.Errorf("%s: %d of %d nodes are nearer the hub they belong to than any other, want 80%%", what, grouped[0], grouped[1])
	}
}

// clickNode clicks, with the mouse, the i-th most important node on the
// map (window.smgCy is the map's Cytoscape instance).
func clickNode(p *page, i int) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		js := fmt.Sprintf(`(() => {
			const cy = window.smgCy;
			const n = cy.nodes().sort((a, b) => b.data('importance') - a.data('importance'))[%d];
			const at = n.renderedPosition(), box = cy.container().getBoundingClientRect();
			return [box.left + at.x, box.top + at.y];
		})()`, i)
		at, err := chromedp.Evaluate[[]float64](js)(ctx, tg)
		if err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.MouseClickXY(at[0], at[1])(ctx, tg)
	}
}

// TestWebOneFile drives the interface as smg view serves it, on the memory
// of the other bundled conversation (personal.json) kept in a file: each
// view loads, and a fact pinned in the page is pinned in the file.
func TestWebOneFile(t *testing.T) {
	p := newPage(t)
	res, err := importer.ReadFile("../examples/personal.json", importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := smg.New(&smg.Options{NoVectors: true})
	if _, err := m.IngestAll(context.Background(), res.Conversations[0].Turns); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "personal.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	m.Close()
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	store, err := serve.NewOneFile(name, f)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv := httptest.NewServer(serve.New(store, nil))
	defer srv.Close()
	base := srv.URL + "/ui/"
	p.do("the map", chromedp.Navigate(base), ready("map"))
	p.do("the timeline", chromedp.Navigate(base+"#/timeline"), ready("timeline"))
	p.do("ask", chromedp.Navigate(base+"#/ask"), chromedp.WaitVisible(testID("ask-question")),
		chromedp.SetValue(testID("ask-question"), "Where does Ana live?"), chromedp.Click(testID("ask-go")), ready("ask"))
	p.do("the facts", chromedp.Navigate(base+"#/facts"), ready("facts"))
	id := eval[string](p, `document.querySelector('[data-testid="fact-row"]').dataset.id`)
	p.do("pin a fact", chromedp.Click(factRow(id, "fact-pin")), ready("facts"))
	again, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	pinned := again.Facts(smg.FactFilter{Pinned: true})
	if len(pinned) != 1 || pinned[0].ID != id {
		t.Errorf("pinned in the page: %s; pinned in the file: %d facts", id, len(pinned))
	}
}
