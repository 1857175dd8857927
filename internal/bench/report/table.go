package main

import (
	"fmt"
	"slices"
	"strings"
)

// table is one section of the report.
type table struct {
	title  string
	header []string
	rows   [][]string
	notes  []string
	// more are tables printed after this one's notes, as part of it.
	more []table
	// failure, when not "", is what the measurement found wrong: printed
	// at the table's end, and it fails the report once the table is out.
	failure string
}

func (t table) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n| %s |\n|%s\n", t.title, strings.Join(t.header, " | "), strings.Repeat(" --- |", len(t.header)))
	for _, r := range t.rows {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
	}
	for _, n := range t.notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}
	for _, m := range t.more {
		fmt.Fprintf(&b, "\n%s", m.markdown())
	}
	if t.failure != "" {
		fmt.Fprintf(&b, "\n**FAILED: %s**\n", t.failure)
	}
	return b.String()
}

func micros(ns float64) string { return fmt.Sprintf("%.1f µs", ns/1000) }

func ratio(x, base float64) string { return fmt.Sprintf("%.1fx", x/base) }

func seconds(s float64) string { return fmt.Sprintf("%.2f s", s) }

func mib(kb int64) string { return fmt.Sprintf("%d MB", kb/1024) }

// median is the middle of xs (the mean of the two middle ones for an even
// count); xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
