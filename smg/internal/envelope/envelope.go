// Package envelope implements the encrypted form of a .smg file
// (spec/smg-v1.md §9.5): a JSON object whose data member is the AES-256-GCM
// ciphertext of the file, under a key derived from a password, and whose
// other members are authenticated with it.
//
// Key derivation is argon2id (golang.org/x/crypto/argon2) by default, or
// PBKDF2-HMAC-SHA256. From the derived key K, HKDF-SHA256 gives the cipher
// key and a 16-byte key check that is stored in the envelope: it tells a
// wrong password apart from a damaged or tampered file without weakening
// the cipher (the tag already lets a guesser test a password).
package envelope

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/crypto/argon2"

	"github.com/smg-memory/smg/spec"
)

// Values of the envelope's members.
const (
	Version   = "1.0"
	Algorithm = "AES-256-GCM"
	Argon2id  = "argon2id"
	PBKDF2    = "pbkdf2-sha256"

	saltSize     = 16
	nonceSize    = 12
	keyCheckSize = 16
	keySize      = 32
)

var (
	// ErrWrongPassword: the password does not open this file.
	ErrWrongPassword = errors.New("wrong password")
	// ErrTampered: the password is right but the file was modified or
	// damaged after it was encrypted.
	ErrTampered = errors.New("encrypted file failed authentication: it was modified or damaged")
	// ErrMalformed: the envelope is not well-formed.
	ErrMalformed = errors.New("malformed encrypted envelope")
	// ErrUnsupported: an algorithm or key derivation this implementation
	// does not know.
	ErrUnsupported = errors.New("unsupported encryption")
	// ErrUnsupportedVersion: an envelope of another major version.
	ErrUnsupportedVersion = errors.New("unsupported envelope version")
	// ErrWeakKDF: sealing with a key derivation below the minimums.
	ErrWeakKDF = errors.New("key derivation parameters below the minimum")
	// ErrKDFLimit: the key derivation asks for more work than allowed.
	ErrKDFLimit = errors.New("key derivation parameters exceed the limit")
	// ErrNoPassword: sealing needs a password.
	ErrNoPassword = errors.New("empty password")
)

// KDF names a key derivation function and its parameters.
type KDF struct {
	Function string `json:"function"`
	// argon2id
	TimeCost    uint32 `json:"timeCost,omitzero"`
	MemoryKiB   uint32 `json:"memoryKiB,omitzero"`
	Parallelism uint8  `json:"parallelism,omitzero"`
	// pbkdf2-sha256
	Iterations int `json:"iterations,omitzero"`
}

// Default key derivations: argon2id as RFC 9106 §4 recommends for
// memory-constrained settings, and PBKDF2 at OWASP's 2023 figure.
var (
	DefaultArgon2id = KDF{Function: Argon2id, TimeCost: 3, MemoryKiB: 64 * 1024, Parallelism: 4}
	DefaultPBKDF2   = KDF{Function: PBKDF2, Iterations: 600_000}
)

// The least a writer may use (OWASP's 2023 minimums): argon2id with 19 MiB
// and two passes, PBKDF2-HMAC-SHA256 with 600,000 iterations. Readers
// accept less, for files written before.
const (
	MinArgon2idMemoryKiB = 19 * 1024
	MinArgon2idTimeCost  = 2
	MinPBKDF2Iterations  = 600_000
)

// Limits bound the work a file may ask of a reader.
type Limits struct {
	MaxMemoryKiB  uint32 // argon2id memory; default DefaultMaxMemoryKiB
	MaxTimeCost   uint32 // argon2id passes; default DefaultMaxTimeCost
	MaxIterations int    // PBKDF2 iterations; default DefaultMaxIterations
}

// The most work a reader does by default to derive a key, and the most a
// writer may ask for, so that every file written is read: twice the
// default argon2id memory and a little under three times its passes
// (about 1 s on one core of 2024, 4 s at worst on a busy one, 130 MiB),
// and a little over three times the default PBKDF2 iterations (1 s).
const (
	DefaultMaxMemoryKiB  = 128 * 1024
	DefaultMaxTimeCost   = 8
	DefaultMaxIterations = 2_000_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxMemoryKiB == 0 {
		l.MaxMemoryKiB = DefaultMaxMemoryKiB
	}
	if l.MaxTimeCost == 0 {
		l.MaxTimeCost = DefaultMaxTimeCost
	}
	if l.MaxIterations == 0 {
		l.MaxIterations = DefaultMaxIterations
	}
	return l
}

// envelope is the whole JSON object. Data is left out of the associated
// data: every other member is authenticated.
type envelope struct {
	Algorithm     string     `json:"algorithm"`
	Data          spec.Bytes `json:"data,omitzero"`
	Encrypted     bool       `json:"encrypted"`
	KeyCheck      spec.Bytes `json:"keyCheck"`
	KeyDerivation KDF        `json:"keyDerivation"`
	Nonce         spec.Bytes `json:"nonce"`
	Salt          spec.Bytes `json:"salt"`
	Version       string     `json:"version"`
}

// SealOptions configure [Seal]. The zero value uses argon2id with its
// default parameters and crypto/rand.
type SealOptions struct {
	KDF KDF
	// Rand supplies the salt and the nonce; tests set it for exact vectors.
	Rand io.Reader
	// InsecureKDF allows a key derivation below the minimums, for tests
	// and test vectors only.
	InsecureKDF bool
}

// Seal encrypts plaintext under password and returns the envelope.
func Seal(plaintext, password []byte, opts SealOptions) ([]byte, error) {
	if err := CheckSeal(password, opts); err != nil {
		return nil, err
	}
	kdf := opts.KDF
	if kdf.Function == "" {
		kdf = DefaultArgon2id
	}
	rnd := opts.Rand
	if rnd == nil {
		rnd = rand.Reader
	}
	env := envelope{
		Algorithm:     Algorithm,
		Encrypted:     true,
		KeyDerivation: kdf,
		Nonce:         make([]byte, nonceSize),
		Salt:          make([]byte, saltSize),
		Version:       Version,
	}
	if _, err := io.ReadFull(rnd, env.Salt); err != nil {
		return nil, fmt.Errorf("reading salt: %w", err)
	}
	if _, err := io.ReadFull(rnd, env.Nonce); err != nil {
		return nil, fmt.Errorf("reading nonce: %w", err)
	}
	aead, check, err := keys(password, env.Salt, kdf)
	if err != nil {
		return nil, err
	}
	env.KeyCheck = check
	ad, err := associatedData(&env)
	if err != nil {
		return nil, err
	}
	env.Data = aead.Seal(nil, env.Nonce, plaintext, ad)
	return marshal(&env)
}

// Open decrypts an envelope. It tells a wrong password (ErrWrongPassword)
// from a file changed after encryption (ErrTampered).
func Open(data, password []byte, lim Limits) ([]byte, error) {
	var env envelope
	if err := unmarshalEnvelope(data, &env); err != nil {
		return nil, err
	}
	if err := env.check(lim.withDefaults()); err != nil {
		return nil, err
	}
	aead, check, err := keys(password, env.Salt, env.KeyDerivation)
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(check, env.KeyCheck) != 1 {
		return nil, ErrWrongPassword
	}
	ad, err := associatedData(&env)
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, env.Nonce, env.Data, ad)
	if err != nil {
		return nil, ErrTampered
	}
	return plain, nil
}

// CheckSeal tells, without deriving a key, whether [Seal] would accept
// password and opts: a password that is not empty, a known key
// derivation, parameters at least the minimums unless InsecureKDF, and at
// most the default limits of a reader, so that what is written is read.
func CheckSeal(password []byte, opts SealOptions) error {
	if len(password) == 0 {
		return ErrNoPassword
	}
	kdf := opts.KDF
	if kdf.Function == "" {
		kdf = DefaultArgon2id
	}
	if err := checkKDF(kdf, Limits{}.withDefaults()); err != nil {
		return err
	}
	if !opts.InsecureKDF {
		switch {
		case kdf.Function == Argon2id && (kdf.MemoryKiB < MinArgon2idMemoryKiB || kdf.TimeCost < MinArgon2idTimeCost):
			return fmt.Errorf("%w: argon2id needs memoryKiB ≥ %d and timeCost ≥ %d", ErrWeakKDF, MinArgon2idMemoryKiB, MinArgon2idTimeCost)
		case kdf.Function == PBKDF2 && kdf.Iterations < MinPBKDF2Iterations:
			return fmt.Errorf("%w: pbkdf2-sha256 needs iterations ≥ %d", ErrWeakKDF, MinPBKDF2Iterations)
		}
	}
	return nil
}

// Describe returns an envelope's key derivation without opening it.
func Describe(data []byte) (KDF, error) {
	var env envelope
	if err := unmarshalEnvelope(data, &env); err != nil {
		return KDF{}, err
	}
	return env.KeyDerivation, nil
}

// unmarshalEnvelope parses an envelope: exactly its members, nothing else.
func unmarshalEnvelope(data []byte, env *envelope) error {
	if err := json.Unmarshal(data, env, json.RejectUnknownMembers(true)); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

func (env *envelope) check(lim Limits) error {
	switch {
	case !env.Encrypted:
		return fmt.Errorf("%w: encrypted is not true", ErrMalformed)
	case !majorOne(env.Version):
		return fmt.Errorf("%w %q", ErrUnsupportedVersion, env.Version)
	case env.Algorithm != Algorithm:
		return fmt.Errorf("%w: algorithm %q", ErrUnsupported, env.Algorithm)
	case len(env.Salt) < saltSize || len(env.Salt) > 64:
		return fmt.Errorf("%w: salt of %d bytes (want 16 to 64)", ErrMalformed, len(env.Salt))
	case len(env.Nonce) != nonceSize:
		return fmt.Errorf("%w: nonce of %d bytes (want 12)", ErrMalformed, len(env.Nonce))
	case len(env.KeyCheck) != keyCheckSize:
		return fmt.Errorf("%w: keyCheck of %d bytes (want 16)", ErrMalformed, len(env.KeyCheck))
	case len(env.Data) < 16:
		return fmt.Errorf("%w: data shorter than the authentication tag", ErrMalformed)
	}
	return checkKDF(env.KeyDerivation, lim)
}

// majorOne reports whether an envelope version is 1.x.
func majorOne(v string) bool {
	major, _, err := spec.ParseVersion(v)
	return err == nil && major == 1
}

func checkKDF(k KDF, lim Limits) error {
	switch k.Function {
	case Argon2id:
		if k.TimeCost < 1 || k.MemoryKiB < 8*uint32(k.Parallelism) || k.Parallelism < 1 || k.Iterations != 0 {
			return fmt.Errorf("%w: argon2id needs timeCost ≥ 1, parallelism ≥ 1, memoryKiB ≥ 8×parallelism, and no iterations", ErrMalformed)
		}
		if k.MemoryKiB > lim.MaxMemoryKiB || k.TimeCost > lim.MaxTimeCost {
			return fmt.Errorf("%w: argon2id timeCost %d, memoryKiB %d (limits %d, %d)", ErrKDFLimit, k.TimeCost, k.MemoryKiB, lim.MaxTimeCost, lim.MaxMemoryKiB)
		}
	case PBKDF2:
		if k.Iterations < 1 || k.TimeCost != 0 || k.MemoryKiB != 0 || k.Parallelism != 0 {
			return fmt.Errorf("%w: pbkdf2-sha256 needs iterations ≥ 1 and nothing else", ErrMalformed)
		}
		if k.Iterations > lim.MaxIterations {
			return fmt.Errorf("%w: pbkdf2-sha256 iterations %d (limit %d)", ErrKDFLimit, k.Iterations, lim.MaxIterations)
		}
	default:
		return fmt.Errorf("%w: key derivation %q", ErrUnsupported, k.Function)
	}
	return nil
}

// keys derives the cipher and the key check from a password.
func keys(password, salt []byte, k KDF) (cipher.AEAD, []byte, error) {
	var master []byte
	switch k.Function {
	case Argon2id:
		master = argon2.IDKey(password, salt, k.TimeCost, k.MemoryKiB, k.Parallelism, keySize)
	case PBKDF2:
		var err error
		master, err = pbkdf2.Key(sha256.New, string(password), salt, k.Iterations, keySize)
		if err != nil {
			return nil, nil, fmt.Errorf("deriving key: %w", err)
		}
	default:
		return nil, nil, fmt.Errorf("%w: key derivation %q", ErrUnsupported, k.Function)
	}
	encKey, err := hkdf.Expand(sha256.New, master, "smg v1 encryption key", keySize)
	if err != nil {
		return nil, nil, err
	}
	check, err := hkdf.Expand(sha256.New, master, "smg v1 key check", keyCheckSize)
	if err != nil {
		return nil, nil, err
	}
	block, err := aes.NewCipher(encKey)
	if err != nil {
		return nil, nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, nil, err
	}
	return aead, check, nil
}

// associatedData is the canonical JSON (RFC 8785) of the envelope without
// its data member.
func associatedData(env *envelope) ([]byte, error) {
	header := *env
	header.Data = nil
	return marshal(&header)
}

func marshal(env *envelope) ([]byte, error) {
	b, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	v := jsontext.Value(b)
	if err := v.Canonicalize(); err != nil {
		return nil, err
	}
	return bytes.Clone(v), nil
}
