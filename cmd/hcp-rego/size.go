package main

import (
	"fmt"
	"regexp"
	"strconv"
)

// sizeValue is the value of a flag that takes a size (--max-bundle-bytes,
// --max-source-bytes): a number of bytes, or of KiB, MiB or GiB, within
// its sizeRange, given once.
type sizeValue struct {
	bytes int64
	set   bool
	sizeRange
}

// sizeRange is what a size flag takes, and how its refusals say so.
type sizeRange struct {
	min, max int64
	// maxText is max as a refusal writes it (the two flags' refusals
	// write 1 TiB differently).
	maxText string
	// example is the size a refusal of a malformed one shows first: the
	// flag's default.
	example int64
}

func (v *sizeValue) String() string { return sizeText(v.bytes) }

func (v *sizeValue) Type() string { return "size" }

// Set reads a size: a number of bytes, or of KiB, MiB or GiB.
func (v *sizeValue) Set(s string) error {
	switch {
	case s == "":
		return errEmptyValue
	case v.set:
		return errGivenTwice
	}
	n, err := v.parse(s)
	if err != nil {
		return err
	}
	v.bytes, v.set = n, true
	return nil
}

// parse reads a size as sizeText writes it, from r.min to r.max bytes.
func (r sizeRange) parse(s string) (int64, error) {
	m := sizePattern.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q: want a size such as %d, %s or 1GiB", s, r.example, sizeText(r.example))
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	size := n << sizeShift[m[2]]
	if err != nil || size>>sizeShift[m[2]] != n || size < r.min || size > r.max {
		return 0, fmt.Errorf("%q: want a size from %s to %s", s, sizeText(r.min), r.maxText)
	}
	return size, nil
}

var sizePattern = regexp.MustCompile(`^([0-9]{1,19})(|KiB|MiB|GiB)$`)

var sizeShift = map[string]uint{"": 0, "KiB": 10, "MiB": 20, "GiB": 30}

// sizeText writes a size as Set reads it, in the largest unit it is a
// whole number of.
func sizeText(n int64) string {
	for _, unit := range []string{"GiB", "MiB", "KiB"} {
		if shift := sizeShift[unit]; n != 0 && n%(1<<shift) == 0 {
			return fmt.Sprintf("%d%s", n>>shift, unit)
		}
	}
	return strconv.FormatInt(n, 10)
}
