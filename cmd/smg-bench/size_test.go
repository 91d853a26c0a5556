package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

func TestSizeReport(t *testing.T) {
	const (
		checkout = "../../smg/examples/checkout.json"
		aider    = "../../smg/importer/testdata/aider-architect.md"
	)
	var out, errs bytes.Buffer
	if status := run([]string{"size", "--count", "1", "--json", checkout, aider}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var rep sizeReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 2 || rep.Count != 1 {
		t.Fatalf("%d inputs, count %d", len(rep.Inputs), rep.Count)
	}
	for i, name := range []string{checkout, aider} {
		in := rep.Inputs[i]
		if len(in.Conversations) != 1 {
			t.Fatalf("%s: %d conversations", in.Input, len(in.Conversations))
		}
		r := in.Conversations[0]
		raw, smgBytes := sizesOf(t, name)
		if r.RawBytes != raw || r.SMGBytes != smgBytes {
			t.Errorf("%s: raw %d, smg %d; want %d, %d", in.Input, r.RawBytes, r.SMGBytes, raw, smgBytes)
		}
		if r.Q11Bytes <= 0 || r.Q11Bytes >= r.RawBytes {
			t.Errorf("%s: q11 %d of raw %d", in.Input, r.Q11Bytes, r.RawBytes)
		}
		if rep.XZ != (r.XZBytes > 0) || rep.XZ && r.XZBytes >= r.RawBytes {
			t.Errorf("%s: xz %v, %d bytes of raw %d", in.Input, rep.XZ, r.XZBytes, r.RawBytes)
		}
		if want := float64(r.SMGBytes) / float64(r.Q11Bytes); r.SMGPerQ11 != want || r.Met != (r.SMGPerQ11 <= r.Target) {
			t.Errorf("%s: smg/q11 %v (want %v), target %v, met %v", in.Input, r.SMGPerQ11, want, r.Target, r.Met)
		}
		var names []string
		var share float64
		for _, sec := range r.Sections {
			names = append(names, sec.Name)
			share += sec.Share
			if sec.Compressed <= 0 || sec.Compressed > sec.JSON+16 {
				t.Errorf("%s: section %+v", in.Input, sec)
			}
		}
		if !slices.Equal(names, format.SectionNames) || math.Abs(share-1) > 1e-9 {
			t.Errorf("%s: sections %v, shares sum to %v", in.Input, names, share)
		}
		// Each version of these conversations is whole in its turn: the
		// file keeps it there once, and the vault stores nothing for it.
		if r.ArtifactBytes <= 0 || r.ArchivedCodeBytes != r.ArtifactBytes || r.ArtifactStoredBytes != 0 || r.ChainRatio != 0 {
			t.Errorf("%s: artifacts %d bytes, %d in turns, %d stored, chain ratio %v", in.Input, r.ArtifactBytes, r.ArchivedCodeBytes, r.ArtifactStoredBytes, r.ChainRatio)
		}
		tot := in.Total
		if tot.Conversation != "total" || tot.Turns != r.Turns || tot.RawBytes != r.RawBytes || tot.SMGBytes != r.SMGBytes || tot.SMGPerQ11 != r.SMGPerQ11 {
			t.Errorf("%s: total %+v of one conversation %+v", in.Input, tot, r)
		}
	}
	if in := rep.Inputs[0]; in.Format != importer.Transcript || in.Total.Target != 0 || in.Total.Met {
		t.Errorf("%s: format %s, target %v, met %v", in.Input, in.Format, in.Total.Target, in.Total.Met)
	}
	if in := rep.Inputs[1]; in.Format != importer.Aider || in.Conversations[0].Target != 1.55 || in.Total.Target != 1.55 {
		t.Errorf("%s: format %s, target %v", in.Input, in.Format, in.Conversations[0].Target)
	}

	out.Reset()
	if status := run([]string{"size", "--count", "1", checkout}, &out, &errs); status != 0 ||
		!strings.Contains(out.String(), "checkout.json") || !strings.Contains(out.String(), "deepArchive") {
		t.Errorf("table: status %d\n%s", status, out.String())
	}
	if status := run([]string{"size", "no-such-file.json"}, &out, &errs); status != 1 {
		t.Errorf("a missing input: status %d", status)
	}
}

// sizesOf gives the size of the one conversation of the input name as
// canonical JSON and as a .smg file, computed apart from the command.
func sizesOf(t testing.TB, name string) (raw, smgBytes int64) {
	t.Helper()
	res, err := importer.ReadFile(name, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	turns := slices.Clone(res.Conversations[0].Turns)
	for i := range turns {
		turns[i].Turn = i + 1
	}
	js, err := spec.MarshalCanonical(turns)
	if err != nil {
		t.Fatal(err)
	}
	m := smg.New(noVectors)
	if _, err := m.IngestAll(context.Background(), turns); err != nil {
		t.Fatal(err)
	}
	b, err := m.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(js)), int64(len(b))
}

// TestSizeVectors: a row takes the vectors' sizes from the memory's
// summary, their share is of the .smg that holds them, a total sums them,
// and the table shows them.
func TestSizeVectors(t *testing.T) {
	row := func(enc string, bytes, compressed, smgBytes int64) sizeRow {
		r := sizeRow{Input: "x", SMGBytes: smgBytes, InFile: true}
		r.addInfo(&format.Info{Vectors: &format.VectorsInfo{Encoding: enc, Bytes: bytes, Compressed: compressed}})
		r.finish()
		return r
	}
	a, b := row("int8", 5160, 6000, 10000), row("int8", 516, 600, 3000)
	if a.VectorEncoding != "int8" || a.VectorBytes != 5160 || a.VectorCompressed != 6000 || a.VectorShare != 0.6 {
		t.Errorf("row %+v", a)
	}
	var tot sizeRow
	tot.add(a)
	tot.add(b)
	tot.finish()
	if tot.VectorBytes != 5676 || tot.VectorCompressed != 6600 || tot.VectorShare != 6600.0/13000 || tot.VectorEncoding != "int8" {
		t.Errorf("total %+v", tot)
	}
	tot.add(row("float32", 1, 1, 1))
	if tot.VectorEncoding != "mixed" {
		t.Errorf("int8 and float32: %q", tot.VectorEncoding)
	}
	var none sizeRow
	none.addInfo(&format.Info{})
	if none.VectorEncoding != "" || none.VectorBytes != 0 {
		t.Errorf("no vectors: %+v", none)
	}
	var out bytes.Buffer
	if err := writeSize(&out, sizeReport{Count: 1, Inputs: []sizeInput{{Input: "x", Conversations: []sizeRow{a}}}}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "vectors KB") || !strings.Contains(s, "5.9 int8") || !strings.Contains(s, "60.0%") {
		t.Errorf("table:\n%s", s)
	}
}

// TestSizeWithVectors checks that --vectors builds the memory with the
// built-in encoder and reports the vectors kept beside the file, and with
// --with-vectors their share of the file; without it there are none.
func TestSizeWithVectors(t *testing.T) {
	const checkout = "../../smg/examples/checkout.json"
	// measure runs size on the checkout conversation with the flags
	// given, and returns its row.
	measure := func(flags ...string) sizeRow {
		t.Helper()
		var out, errs bytes.Buffer
		if status := run(append([]string{"size", "--count", "1", "--json", checkout}, flags...), &out, &errs); status != 0 {
			t.Fatalf("status %d: %s", status, errs.String())
		}
		var rep sizeReport
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Inputs[0].Conversations[0]
	}
	plain, beside := measure(), measure("--vectors")
	for _, r := range []sizeRow{plain, beside} {
		if r.VectorShare != 0 {
			t.Errorf("a file without vectors: their share %v of it", r.VectorShare)
		}
	}
	if plain.CacheBytes != 0 || beside.CacheBytes == 0 || beside.SMGBytes > plain.SMGBytes+200 {
		t.Errorf("the file is %d bytes without vectors, %d with them kept beside it (%d bytes)", plain.SMGBytes, beside.SMGBytes, beside.CacheBytes)
	}
	for _, vectors := range []bool{false, true} {
		flags := []string{"--with-vectors"}
		if vectors {
			flags = append(flags, "--vectors")
		}
		r := measure(flags...)
		if got := r.VectorEncoding == "int8" && r.VectorShare > 0 && r.VectorShare < 1; got != vectors {
			t.Errorf("vectors %v: encoding %q, share %v", vectors, r.VectorEncoding, r.VectorShare)
		}
	}
}
