package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// defaultTransferTimeout bounds a whole push or pull. The registry
// client's own timeouts bound each step (a connection, an answer, 60 s
// in which no byte moves), so a registry that sends a byte a minute
// would hold a pipeline for ever without it.
const defaultTransferTimeout = 10 * time.Minute

// addTimeoutFlag adds --timeout to f, read into d.
func addTimeoutFlag(f *pflag.FlagSet, d *time.Duration) {
	f.DurationVar(d, "timeout", defaultTransferTimeout, "give up when the whole transfer takes longer than this, such as 90s or 1h")
}

// withTransferTimeout returns ctx ending after d, refusing a d that is not
// positive.
func withTransferTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc, error) {
	if d <= 0 {
		return nil, nil, fmt.Errorf("--timeout %s: want a positive duration, such as 90s", d)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

// timedOut names --timeout in err when ctx ended on it.
func timedOut(ctx context.Context, d time.Duration, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w (the transfer took longer than --timeout %s)", err, d)
	}
	return err
}
