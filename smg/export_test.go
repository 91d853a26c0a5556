package smg

import (
	"os"
	"testing"
)

// TestMain turns the built-in encoder off: the tests about vectors turn it
// on (BuiltinOn), the others spare its time.
func TestMain(m *testing.M) {
	noBuiltin.Store(true)
	os.Exit(m.Run())
}

// BuiltinOn turns the built-in encoder on for the memories t makes that
// are given no embedder, until t ends. t must not be parallel.
func BuiltinOn(t testing.TB) {
	t.Helper()
	noBuiltin.Store(false)
	t.Cleanup(func() { noBuiltin.Store(true) })
}

// SetGate makes m's background embedding wait, before each batch, for a
// value from gate.
func SetGate(m *Memory, gate chan struct{}) {
	m.vw.mu.Lock()
	defer m.vw.mu.Unlock()
	m.vw.gate = gate
}

// Embedding reports whether m's background embedding runs.
func Embedding(m *Memory) bool {
	m.vw.mu.Lock()
	defer m.vw.mu.Unlock()
	return m.vw.done != nil
}
