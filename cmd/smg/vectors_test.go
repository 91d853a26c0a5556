package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
)

// vectorStatus is the exit status of `smg validate` for each expectation.
func vectorStatus(expect string) int {
	switch expect {
	case "ok":
		return exitOK
	case "password-required", "wrong-password":
		return exitPassword
	}
	return exitInvalid
}

// smallLimits are limits far below the defaults and far above what the
// vectors that pass need. With them, the read-only commands other than
// validate reject the hostile vectors (decompression bombs, millions of
// edges) quickly: under the race detector, reading such a vector up to the
// default limits costs seconds each time.
var smallLimits = smg.Limits{
	MaxFileSize:     1 << 20,
	MaxDocumentSize: 1 << 20,
	MaxListLength:   10_000,
	MaxNodes:        10_000,
	MaxEdges:        10_000,
}

// TestVectors runs validate on every test vector, with the default limits,
// and checks its exit status; cat of every readable, unencrypted vector
// re-encodes to its bytes; and no read-only command changes a vector's
// file.
func TestVectors(t *testing.T) {
	vectors, err := smgtest.Load(filepath.Join(testdataDir, "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			name := writeTemp(t, v.Name+".smg", v.Body)
			unchanged := readOnly(t, name)
			env := map[string]string{}
			if v.Password != "" {
				env[passwordEnv] = v.Password
			}

			r := run(t, env, "validate", name)
			if want := vectorStatus(v.Expect); r.status != want {
				t.Errorf("validate: status %d, want %d (expect: %s)\nstdout: %s\nstderr: %s", r.status, want, v.Expect, r.stdout, r.stderr)
			}
			unchanged("validate")

			for _, args := range [][]string{{"info", name}, {"export", "--format", "nquads", name}} {
				runWith(t, env, nil, smallLimits, args...)
				unchanged(args[0])
			}

			r = runWith(t, env, nil, smallLimits, "cat", name)
			unchanged("cat")
			if v.Expect != "ok" || format.IsEncrypted(v.Body) {
				return
			}
			if r.status != exitOK {
				t.Fatalf("cat: status %d: %s", r.status, r.stderr)
			}
			doc, err := format.Unmarshal([]byte(r.stdout), nil)
			if err != nil {
				t.Fatalf("decoding the output of cat: %v", err)
			}
			opts := smgtest.Form(v.Body)
			again, err := format.Marshal(doc, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !v.NotCanonical && !bytes.Equal(again, v.Body) {
				t.Errorf("cat, decoded and encoded again (%+v), gives other bytes than the vector's:\n%.300q\nwant\n%.300q", opts, again, v.Body)
			}
		})
	}
}
