package envelope

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

var cheap = KDF{Function: Argon2id, TimeCost: 1, MemoryKiB: 8, Parallelism: 1}

func seal(t testing.TB, plain []byte, kdf KDF, seed byte) []byte {
	t.Helper()
	env, err := Seal(plain, []byte("pw"), SealOptions{KDF: kdf, Rand: rand.NewChaCha8([32]byte{seed}), InsecureKDF: true})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestSealOpen(t *testing.T) {
	for _, kdf := range []KDF{cheap, {Function: PBKDF2, Iterations: 3}} {
		plain := []byte("the memory")
		env := seal(t, plain, kdf, 1)
		got, err := Open(env, []byte("pw"), Limits{})
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%s: %q, %v", kdf.Function, got, err)
		}
		if _, err := Open(env, []byte("pW"), Limits{}); !errors.Is(err, ErrWrongPassword) {
			t.Errorf("%s, wrong password: %v", kdf.Function, err)
		}
		if d, err := Describe(env); err != nil || d != kdf {
			t.Errorf("Describe = %+v, %v", d, err)
		}
	}
}

// TestHeaderIsAuthenticated changes each header member in a way the
// reader still accepts: every change fails.
func TestHeaderIsAuthenticated(t *testing.T) {
	env := seal(t, []byte("the memory"), cheap, 2)
	for name, edit := range map[string]func(*envelope){
		"nonce":     func(e *envelope) { e.Nonce[0] ^= 1 },
		"salt":      func(e *envelope) { e.Salt[0] ^= 1 },
		"timeCost":  func(e *envelope) { e.KeyDerivation.TimeCost = 2 },
		"memoryKiB": func(e *envelope) { e.KeyDerivation.MemoryKiB = 16 },
		"keyCheck":  func(e *envelope) { e.KeyCheck[0] ^= 1 },
		"data":      func(e *envelope) { e.Data[3] ^= 1 },
	} {
		var e envelope
		if err := unmarshalEnvelope(env, &e); err != nil {
			t.Fatal(err)
		}
		edit(&e)
		b, err := marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(b, []byte("pw"), Limits{})
		want := ErrTampered
		if name == "salt" || name == "timeCost" || name == "memoryKiB" || name == "keyCheck" {
			// The key derivation's input changed: no password fits.
			want = ErrWrongPassword
		}
		if !errors.Is(err, want) {
			t.Errorf("%s changed: %v, want %v", name, err, want)
		}
	}
}

func TestOpenRejects(t *testing.T) {
	env := string(seal(t, []byte("x"), cheap, 3))
	for name, tc := range map[string]struct {
		env  string
		want error
	}{
		"unknown member": {strings.Replace(env, `"version"`, `"extra":1,"version"`, 1), ErrMalformed},
		"algorithm":      {strings.Replace(env, `AES-256-GCM`, `AES-128-GCM`, 1), ErrUnsupported},
		"version":        {strings.Replace(env, `"version":"1.0"`, `"version":"2.0"`, 1), ErrUnsupportedVersion},
		"minor version":  {strings.Replace(env, `"version":"1.0"`, `"version":"1.3"`, 1), ErrTampered},
		"kdf":            {strings.Replace(env, `"argon2id"`, `"scrypt"`, 1), ErrUnsupported},
		"memory":         {strings.Replace(env, `"memoryKiB":8`, `"memoryKiB":2097152`, 1), ErrKDFLimit},
		"old maximum":    {strings.Replace(strings.Replace(env, `"memoryKiB":8`, `"memoryKiB":1048576`, 1), `"timeCost":1`, `"timeCost":64`, 1), ErrKDFLimit},
		"time cost":      {strings.Replace(env, `"timeCost":1`, `"timeCost":9`, 1), ErrKDFLimit},
		"parallelism":    {strings.Replace(env, `"parallelism":1`, `"parallelism":0`, 1), ErrMalformed},
		"not encrypted":  {strings.Replace(env, `"encrypted":true`, `"encrypted":false`, 1), ErrMalformed},
		"bad base64":     {strings.Replace(env, `"nonce":"`, `"nonce":"!`, 1), ErrMalformed},
	} {
		if _, err := Open([]byte(tc.env), []byte("pw"), Limits{}); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	if _, err := Seal([]byte("x"), nil, SealOptions{}); !errors.Is(err, ErrNoPassword) {
		t.Errorf("sealing without a password: %v", err)
	}
	// What a writer may choose, a reader with the default limits opens.
	for _, heavy := range []KDF{
		{Function: Argon2id, TimeCost: 3, MemoryKiB: DefaultMaxMemoryKiB + 1, Parallelism: 4},
		{Function: Argon2id, TimeCost: DefaultMaxTimeCost + 1, MemoryKiB: 64 << 10, Parallelism: 4},
		{Function: PBKDF2, Iterations: DefaultMaxIterations + 1},
	} {
		if _, err := Seal([]byte("x"), []byte("pw"), SealOptions{KDF: heavy}); !errors.Is(err, ErrKDFLimit) {
			t.Errorf("sealing with %+v: %v, want %v", heavy, err, ErrKDFLimit)
		}
	}
	for _, weak := range []KDF{
		{Function: PBKDF2, Iterations: MinPBKDF2Iterations - 1},
		{Function: Argon2id, TimeCost: 3, MemoryKiB: MinArgon2idMemoryKiB - 1, Parallelism: 1},
		{Function: Argon2id, TimeCost: 1, MemoryKiB: 64 << 10, Parallelism: 1},
	} {
		if _, err := Seal([]byte("x"), []byte("pw"), SealOptions{KDF: weak}); !errors.Is(err, ErrWeakKDF) {
			t.Errorf("sealing with %+v: %v", weak, err)
		}
	}
}

// FuzzOpen feeds Open arbitrary envelopes: it never panics, and only the
// envelope it was seeded with opens.
func FuzzOpen(f *testing.F) {
	f.Add(seal(f, []byte("the memory"), cheap, 4))
	f.Add(seal(f, []byte(""), KDF{Function: PBKDF2, Iterations: 2}, 5))
	lim := Limits{MaxMemoryKiB: 64, MaxTimeCost: 2, MaxIterations: 100}
	f.Fuzz(func(t *testing.T, env []byte) {
		plain, err := Open(env, []byte("pw"), lim)
		if err == nil && string(plain) != "the memory" && len(plain) != 0 {
			t.Fatalf("a fuzzed envelope opened to %q", plain)
		}
	})
}

// FuzzSealOpen: whatever is sealed opens to itself.
func FuzzSealOpen(f *testing.F) {
	f.Add([]byte("the memory"), []byte("pw"))
	f.Fuzz(func(t *testing.T, plain, password []byte) {
		if len(password) == 0 {
			return
		}
		env, err := Seal(plain, password, SealOptions{KDF: cheap, InsecureKDF: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Open(env, password, Limits{})
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("%q → %q, %v", plain, got, err)
		}
	})
}
