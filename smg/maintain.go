package smg

import (
	"context"
	"fmt"
	"time"

	"github.com/smg-memory/smg/graph"
)

// MaintainOptions tell [Memory.Maintain] what to do: the time it runs at
// (zero: the memory's own clock, not the wall clock), how long untouched
// makes a node stale (90 days), the weakest edge kept (0.4), the longest
// chain of patches to an artifact's latest version (half the snapshot
// interval), and whether to change nothing (DryRun). The zero value is
// the defaults; see [graph.MaintainOptions].
type MaintainOptions = graph.MaintainOptions

// MaintenanceReport lists the changes maintenance made, or would make.
type MaintenanceReport = graph.MaintenanceReport

// MaintenanceChange is one change of a [MaintenanceReport]: its kind,
// the ids it concerns and what it did.
type MaintenanceChange = graph.Change

// ChangeKind names the kind of a [MaintenanceChange].
type ChangeKind = graph.ChangeKind

// The kinds of [MaintenanceChange], in the order maintenance makes them.
const (
	ChangeMerge    = graph.ChangeMerge
	ChangeDropEdge = graph.ChangeDropEdge
	ChangePrune    = graph.ChangePrune
	ChangeDecay    = graph.ChangeDecay
	ChangeRebase   = graph.ChangeRebase
)

// ChangeKinds are the kinds of change, in the order maintenance makes
// them.
var ChangeKinds = graph.ChangeKinds

// Defaults of [MaintainOptions].
const (
	DefaultStaleAfter           = graph.DefaultStaleAfter
	DefaultMaintainEdgeStrength = graph.DefaultMaintainEdgeStrength
)

// Maintain keeps the memory in shape: it merges near-duplicate nodes and
// facts, drops weak edges, prunes stale nodes, decays activation up to
// its clock and stores long artifact chains' latest versions in full,
// and reports each change (see [graph.Builder.Maintain] for what each
// does and what is never pruned). What it removes or merges stays so
// when the memory is saved and loaded again. With DryRun it changes
// nothing and reports what a real run would do.
func (m *Memory) Maintain(ctx context.Context, opts MaintainOptions) (MaintenanceReport, error) {
	if opts.DryRun {
		if err := ctx.Err(); err != nil {
			return MaintenanceReport{}, err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.b != nil {
			return m.b.Maintain(opts)
		}
		// Opened and not replayed yet: replay a copy, not the memory.
		b, err := graph.Load(m.doc, m.cfg, m.blocks)
		if err != nil {
			return MaintenanceReport{}, fmt.Errorf("loading the memory: %w", err)
		}
		opts.DryRun = false
		r, err := b.Maintain(opts)
		r.DryRun = true
		return r, err
	}
	var r MaintenanceReport
	err := m.change(ctx, func(b *graph.Builder, _ time.Time) error {
		var err error
		r, err = b.Maintain(opts)
		return err
	})
	return r, err
}

// countWrite counts a write of the memory's file
// (metadata.maintenance.writesSince), and maintains the memory with opts
// when it is the every-th write since maintenance last ran. It returns
// the report of that maintenance, or nil.
func (m *Memory) countWrite(every int, opts MaintainOptions) (*MaintenanceReport, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := m.builder()
	if err != nil {
		return nil, err
	}
	m.gen++
	if b.CountWrite() < every {
		return nil, nil
	}
	opts.DryRun = false
	r, err := b.Maintain(opts)
	if err != nil {
		return nil, err
	}
	return &r, nil
}
