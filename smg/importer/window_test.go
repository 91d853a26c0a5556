package importer

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// readChunked reads data as Read does, the window reading chunk bytes at
// least at a time (0: all at once), and says what it got, errors included.
func readChunked(data []byte, opts Options, chunk int) string {
	if chunk == 0 {
		chunk = len(data) + 1
	}
	opts.chunk = chunk
	res, err := Read(bytes.NewReader(data), opts)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%s %#v %q", res.Format, res.Conversations, res.Skipped)
}

// readPieces reads data as Stream does with Options.PieceTurns pieces,
// the window reading chunk bytes at least at a time, and says what it got
// as readChunked does, the pieces of each conversation joined.
func readPieces(data []byte, opts Options, chunk, pieces int) string {
	opts.chunk, opts.PieceTurns = chunk, pieces
	var convs []Conversation
	res, err := Stream(bytes.NewReader(data), opts, func(c Conversation) error {
		if c.Part == 0 {
			convs = append(convs, c)
			return nil
		}
		last := &convs[len(convs)-1]
		if c.Part != last.Part+1 || c.ID != last.ID || len(last.Turns) == 0 || len(last.Turns)%pieces != 0 || len(c.Turns) == 0 || len(c.Turns) > pieces {
			return fmt.Errorf("piece %d of %d turns after %d turns in %d pieces", c.Part, len(c.Turns), len(last.Turns), last.Part+1)
		}
		last.Turns, last.Part = append(last.Turns, c.Turns...), c.Part
		return nil
	})
	if err != nil {
		return "error: " + err.Error()
	}
	for i := range convs {
		convs[i].Part = 0
	}
	res.Conversations = convs
	return fmt.Sprintf("%s %#v %q", res.Format, res.Conversations, res.Skipped)
}

// TestStreamWindows: an input read a few bytes at a time gives what it
// gives read at once: the same conversations, and the same errors at the
// same lines, columns and paths, in every format; so it does given in
// pieces of a few turns, joined.
func TestStreamWindows(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	inputs := map[string][]byte{}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = data
	}
	for i, s := range append(seedInputs,
		"[]", " [ ] ", "[\n]\n x", "[{\"sample_id\": 1, \"conversation\": {}}\n,\n 7 , 8\n]",
		"[{}\n, {\"conversation\": {\"session_1\": [{\"speaker\": \"a\", \"text\": \"b\"}, 3]}}]\n",
		"[{},", "[{}", "[{} {}]", "[1,]", "[12, 3]", "\ufeff[{\"conversation\":{\"session_1\":[{\"speaker\":\"a\",\"text\":\"b\"}]}}]", "[12", "[12 ",
		"[1, \u0289]", "[\n\u0289", "[\"a\",\n \U0001F600 ]", "[{\"conversation\": \u00e9}]") {
		inputs[fmt.Sprint("seed ", i)] = []byte(s)
	}
	if testing.Short() {
		for name, data := range inputs {
			inputs[name] = data[:min(len(data), 8<<10)]
		}
	}
	for name, data := range inputs {
		for k := range len(Formats) + 1 {
			format := Auto
			if k > 0 {
				format = Formats[k-1]
			}
			for _, strict := range []bool{false, true} {
				opts := Options{Format: format, Strict: strict, Name: "in"}
				whole := readChunked(data, opts, 0)
				for _, chunk := range []int{1, 3, 17, 4096} {
					if got := readChunked(data, opts, chunk); got != whole {
						t.Fatalf("%s as %s (strict %v), read %d bytes at a time:\n%.600s\nread whole:\n%.600s", name, format, strict, chunk, got, whole)
					}
				}
				for _, pieces := range []int{1, 2, 5} {
					if got := readPieces(data, opts, 17, pieces); got != whole {
						t.Fatalf("%s as %s (strict %v), in pieces of %d turns:\n%.600s\nread whole:\n%.600s", name, format, strict, pieces, got, whole)
					}
				}
			}
		}
	}
}

// TestStreamPositions: the errors of an array read a piece at a time are
// placed in the whole input, on the lines and at the columns where its
// elements start, however the pieces fall.
func TestStreamPositions(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"[{\"sample_id\": 1, \"conversation\": {}}\n,\n 7 , 8\n]", []string{"3:2: $[1]: want a LoCoMo sample object, not a number", "3:6: $[2]: want a LoCoMo sample object, not a number"}},
		{"[1, 22,  {\"conversation\": {\"session_1\": [3]}}, \"x\"]", []string{
			"1:2: $[0]: want a LoCoMo sample object, not a number",
			"1:5: $[1]: want a LoCoMo sample object, not a number",
			"1:42: $[2].conversation.session_1[0]: want a turn object, not a number",
			"1:48: $[3]: want a LoCoMo sample object, not a string"}},
		{"\ufeff[\r\n  1,\r\n  2]", []string{"2:3: $[0]: want a LoCoMo sample object, not a number", "3:3: $[1]: want a LoCoMo sample object, not a number"}},
	} {
		for _, chunk := range []int{0, 1, 2, 5} {
			opts := Options{Format: LoCoMo, chunk: chunk}
			if chunk == 0 {
				opts.chunk = len(c.in) + 1
			}
			res, err := Read(strings.NewReader(c.in), opts)
			if err != nil {
				t.Fatalf("%q: %v", c.in, err)
			}
			if got := fmt.Sprint(res.Skipped); got != fmt.Sprint(c.want) {
				t.Errorf("%q, %d bytes at a time:\n got %q\nwant %q", c.in, chunk, got, c.want)
			}
		}
	}
}

// FuzzStream: read a few bytes at a time, any input gives what it gives
// read at once.
func FuzzStream(f *testing.F) {
	seeds(f, func(data []byte) {
		f.Add(data, uint8(0), false, uint8(1))
		f.Add(data, uint8(3), true, uint8(7))
	})
	f.Fuzz(func(t *testing.T, data []byte, k uint8, strict bool, chunk uint8) {
		format := Auto
		if int(k)%(len(Formats)+1) > 0 {
			format = Formats[int(k)%(len(Formats)+1)-1]
		}
		opts := Options{Format: format, Strict: strict, Name: "fuzz"}
		whole := readChunked(data, opts, 0)
		if got := readChunked(data, opts, 1+int(chunk)%64); got != whole {
			t.Fatalf("read %d bytes at a time:\n%s\nread whole:\n%s", 1+int(chunk)%64, got, whole)
		}
		if got := readPieces(data, opts, 1+int(chunk)%64, 1+int(k)%3); got != whole {
			t.Fatalf("in pieces of %d turns:\n%s\nread whole:\n%s", 1+int(k)%3, got, whole)
		}
	})
}

// countingReader counts the bytes read from it, and the reads.
type countingReader struct {
	r        io.Reader
	n, calls int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	c.calls++
	return n, err
}

// TestStreamHoldsOneConversation: a large export is given one conversation
// at a time, each as soon as it is read, and the reader holds a window of
// the input, not the whole of it.
func TestStreamHoldsOneConversation(t *testing.T) {
	var b strings.Builder
	long := strings.Repeat("word ", 20000) // 100 KB a turn
	const samples = 40
	b.WriteString("[")
	for i := range samples {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"sample_id": "s%d", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": %q}, {"speaker": "B", "dia_id": "D1:2", "text": "ok"}]}}`, i, long)
	}
	b.WriteString("]\n")
	data := []byte(b.String())
	in := &countingReader{r: bytes.NewReader(data)}
	var read []int // bytes read when each conversation was given
	res, err := Stream(in, Options{Name: "big.json"}, func(c Conversation) error {
		if len(c.Turns) != 2 || c.Turns[0].Content != long || c.Turns[1].Turn != 2 || c.Turns[1].ConversationID != c.ID {
			t.Fatalf("conversation %s: %d turns", c.ID, len(c.Turns))
		}
		read = append(read, in.n)
		return nil
	})
	if err != nil || res.Format != LoCoMo || len(res.Conversations) != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	if len(read) != samples {
		t.Fatalf("%d conversations given, want %d", len(read), samples)
	}
	// The window reads 1 MiB at a time, more for a value that does not
	// fit: each conversation is given within a few of its reads.
	for i, n := range read {
		if before := (i + 1) * len(data) / samples; n > before+3*chunkSize {
			t.Fatalf("conversation %d given after %d bytes read, its end is at %d", i+1, n, before)
		}
	}
	if read[0] >= len(data)/2 {
		t.Fatalf("the first conversation given after %d of %d bytes", read[0], len(data))
	}

	// A conversation larger than the window grows it geometrically: the
	// element is checked again after each read, a few times, not once per
	// chunk (3 MB in 4 KB chunks would be 750 times, each over all of it).
	one := fmt.Sprintf(`[{"sample_id": "one", "conversation": {"session_1": [{"speaker": "A", "text": %q}]}}]`, strings.Repeat(long, 30))
	in = &countingReader{r: strings.NewReader(one)}
	if _, err := Stream(in, Options{Format: LoCoMo, chunk: 4096}, func(Conversation) error { return nil }); err != nil || in.calls > 20 {
		t.Fatalf("%d reads of %d bytes: %v", in.calls, len(one), err)
	}

	// An error of fn stops the read, and is the error of Stream.
	stop := fmt.Errorf("stop")
	calls := 0
	if _, err := Stream(bytes.NewReader(data), Options{}, func(Conversation) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("%v after %d calls", err, calls)
	}
}

// TestStreamTranscriptPieces: a long transcript in JSON Lines is given in
// pieces of PieceTurns turns, each as soon as it is read, numbered on
// from the piece before: a read holds a piece and a window of the input,
// not the whole conversation.
func TestStreamTranscriptPieces(t *testing.T) {
	var b strings.Builder
	const turns = 10001
	for i := range turns {
		if i == 1500 {
			b.WriteString("{\"role\": \"user\"}\n\n") // malformed, then blank
		}
		fmt.Fprintf(&b, `{"role": %q, "content": "turn %d %s", "id": "m%d"}`+"\n", [2]string{"user", "assistant"}[i%2], i, strings.Repeat("text ", 200), i)
	}
	data := []byte(b.String())
	whole, err := Read(bytes.NewReader(data), Options{})
	if err != nil || len(whole.Conversations) != 1 || len(whole.Conversations[0].Turns) != turns || len(whole.Skipped) != 1 {
		t.Fatalf("read whole: %v", err)
	}
	in := &countingReader{r: bytes.NewReader(data)}
	var got []spec.Turn
	var read []int // bytes read when each piece was given
	res, err := Stream(in, Options{PieceTurns: 1000}, func(c Conversation) error {
		if c.Part != len(read) || c.ID != "" || len(c.Turns) != min(1000, turns-len(got)) {
			t.Fatalf("piece %d (part %d) of %d turns after %d", len(read), c.Part, len(c.Turns), len(got))
		}
		got = append(got, c.Turns...)
		read = append(read, in.n)
		return nil
	})
	if err != nil || res.Format != Transcript || len(res.Skipped) != 1 || res.Skipped[0].Line != 1501 {
		t.Fatalf("%v %+v", err, res)
	}
	if len(read) != 11 || !reflect.DeepEqual(got, whole.Conversations[0].Turns) {
		t.Fatalf("%d pieces, %d turns: not the turns read whole", len(read), len(got))
	}
	for i, n := range read[:10] {
		if end := (i + 1) * len(data) / 10; n > end+3*chunkSize {
			t.Fatalf("piece %d given after %d of %d bytes read, its end near %d", i+1, n, len(data), end)
		}
	}
	if read[0] >= len(data)/2 {
		t.Fatalf("the first piece given after %d of %d bytes", read[0], len(data))
	}
}

// TestStreamReadError: an input that fails to read is an error that names
// it, not a syntax error, wherever the read fails.
func TestStreamReadError(t *testing.T) {
	data := []byte(`[{"sample_id": "a", "conversation": {"session_1": [{"speaker": "A", "text": "hi"}]}}, {"sample_id": "b"`)
	for _, at := range []int{0, 10, len(data) - 5} {
		r := io.MultiReader(bytes.NewReader(data[:at]), iotestErr{})
		_, err := Stream(r, Options{Name: "in.json", Format: LoCoMo}, func(Conversation) error { return nil })
		if err == nil || !strings.HasPrefix(err.Error(), "reading in.json: ") || !reflect.DeepEqual(errorsUnwrapAll(err), errBroken) {
			t.Fatalf("read failing at %d: %v", at, err)
		}
	}
}

var errBroken = fmt.Errorf("disk broken")

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errBroken }

func errorsUnwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}
