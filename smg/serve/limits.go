package serve

import (
	"context"
	"errors"
	"fmt"

	"github.com/smg-memory/smg/smg"
)

// DefaultMaxTurn is the most bytes a turn's text may take unless
// [Options.MaxTurn] says: far more than any message a person writes or a
// model answers, and small enough that a turn's work stays within a
// request's time.
const DefaultMaxTurn = 1 << 20

// ErrTurnTooLarge is the error of a turn whose text is past the server's
// limit (413): nothing of the request is kept.
var ErrTurnTooLarge = errors.New("a turn is larger than the server takes")

// bounded is f as requests use it: a turn past the server's limit is
// refused before the memory is asked anything.
func (s *Server) bounded(f smg.Kept) smg.Kept {
	return boundedKept{Kept: f, max: s.maxTurn()}
}

func (s *Server) maxTurn() int {
	if s.opts.MaxTurn > 0 {
		return s.opts.MaxTurn
	}
	return DefaultMaxTurn
}

// boundedKept is a memory that refuses turns larger than max bytes.
type boundedKept struct {
	smg.Kept
	max int
}

func (b boundedKept) Record(ctx context.Context, turns []smg.Turn, opts *smg.RecordOptions) (smg.Recorded, error) {
	if err := checkTurns(turns, b.max); err != nil {
		return smg.Recorded{}, err
	}
	return b.Kept.Record(ctx, turns, opts)
}

// checkTurns is ErrTurnTooLarge for the first of turns past max bytes.
func checkTurns(turns []smg.Turn, max int) error {
	for i, t := range turns {
		if len(t.Content) > max {
			return fmt.Errorf("%w: turn %d is %d bytes, and a turn may take %d (smg serve --max-turn)", ErrTurnTooLarge, i+1, len(t.Content), max)
		}
	}
	return nil
}
