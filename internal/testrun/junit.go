package testrun

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// JUnit is the JUnit XML document that CI systems read: one test suite a
// file (case file or Rego test file), one test case a decision case or Rego
// test. A failing test carries a failure whose text lists the fields that
// differ; a Rego test that errored is a failure too, of type "error", so
// that failures in the XML equal the failed total. Each test case has its
// time, in seconds, and each suite and the whole the sum of theirs.
type JUnit struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Name     string        `xml:"name,attr"`
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Skipped  int           `xml:"skipped,attr"`
	Time     junitTime     `xml:"time,attr"`
	Suites   []*JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is the tests of one file.
type JUnitSuite struct {
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     junitTime    `xml:"time,attr"`
	File     string       `xml:"file,attr"`
	Cases    []*JUnitCase `xml:"testcase"`
}

// JUnitCase is one test.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Line      int           `xml:"line,attr"`
	Time      junitTime     `xml:"time,attr"`
	Failure   *JUnitFailure `xml:"failure,omitempty"`
	Skipped   *struct{}     `xml:"skipped,omitempty"`
}

// JUnitFailure explains a failing test: Message is its first line, Text
// every line.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// JUnit builds the report's JUnit document.
func (r *Report) JUnit() *JUnit {
	doc := &JUnit{Name: "hcp-rego test"}
	bySuite := map[string]*JUnitSuite{}
	for _, res := range r.Results {
		s := bySuite[res.File]
		if s == nil {
			s = &JUnitSuite{Name: xmlChars(res.File), File: xmlChars(res.File)}
			bySuite[res.File] = s
			doc.Suites = append(doc.Suites, s)
		}
		s.Cases = append(s.Cases, junitCase(res))
		s.Tests++
		doc.Tests++
		s.Time += junitTime(res.Duration)
		doc.Time += junitTime(res.Duration)
		switch res.Status {
		case Fail:
			s.Failures++
			doc.Failures++
		case Skip:
			s.Skipped++
			doc.Skipped++
		}
	}
	return doc
}

func junitCase(res *Result) *JUnitCase {
	c := &JUnitCase{Name: xmlChars(res.Name), ClassName: xmlChars(res.File), File: xmlChars(res.File), Line: res.Pos.Line, Time: junitTime(res.Duration)}
	if res.Kind == KindRego {
		c.ClassName = xmlChars(res.Name[:max(0, strings.LastIndexByte(res.Name, '.'))])
	}
	switch res.Status {
	case Skip:
		c.Skipped = &struct{}{}
	case Fail:
		details := res.Details()
		kind := "mismatch"
		if len(res.Diffs) == 0 {
			kind = "failure"
		}
		if strings.HasPrefix(res.Message, "error: ") {
			kind = "error"
		}
		message := res.Location() + ": " + firstLine(details[0])
		if res.Decision != nil {
			// The message is what a CI page shows first: it says why.
			message += "; decision: " + res.Why()
		}
		c.Failure = &JUnitFailure{
			Message: xmlChars(message),
			Type:    kind,
			Text:    xmlChars(res.Location() + ": " + printable.Quote(res.Name) + "\n" + strings.Join(details, "\n")),
		}
	}
	return c
}

// junitTime is a time as JUnit writes it: seconds, to the microsecond.
type junitTime time.Duration

// MarshalXMLAttr writes the time in seconds, "0.001234".
func (d junitTime) MarshalXMLAttr(name xml.Name) (xml.Attr, error) {
	return xml.Attr{Name: name, Value: strconv.FormatFloat(time.Duration(d).Seconds(), 'f', 6, 64)}, nil
}

// UnmarshalXMLAttr reads a time in seconds back, as a CI system does.
func (d *junitTime) UnmarshalXMLAttr(attr xml.Attr) error {
	s, err := strconv.ParseFloat(attr.Value, 64)
	if err != nil {
		return fmt.Errorf("time %q: %w", attr.Value, err)
	}
	*d = junitTime(time.Duration(s * float64(time.Second)))
	return nil
}

// WriteJUnit writes the report as JUnit XML.
func (r *Report) WriteJUnit(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r.JUnit()); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// xmlChars replaces each character that XML 1.0 cannot hold at all, not
// even in CDATA (control characters other than tab, line feed and carriage
// return; U+FFFE and U+FFFF), with U+FFFD, as encoding/xml does in
// attributes: a case name or a Rego print() could otherwise make the
// whole report unreadable to CI. So it does with the controls XML 1.0
// discourages (DEL and U+0080 to U+009F, a terminal's CSI among them),
// in attributes too: no control reaches a CI log raw (docs/reliability.md,
// "Names cannot write output of their own").
func xmlChars(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r < 0x7F,
			r >= 0xA0 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= utf8.MaxRune:
			return r
		}
		return utf8.RuneError
	}, s)
}
