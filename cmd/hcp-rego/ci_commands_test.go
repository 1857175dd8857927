package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// shellCommand is one simple command of a CI script: its words, quotes
// removed and variables left as written.
type shellCommand []string

// simpleCommands splits a script into its simple commands: lines (a
// trailing backslash continues one), then at ;, &&, || and |, with
// redirections (> FILE, 2> FILE, >> FILE, < FILE) dropped. It reads the
// shell that CI examples are written in, not every shell.
func simpleCommands(script string) []shellCommand {
	script = strings.ReplaceAll(script, "\\\n", " ")
	var out []shellCommand
	for _, line := range strings.Split(script, "\n") {
		var cur shellCommand
		words := shellWords(line)
		for i := 0; i < len(words); i++ {
			switch w := words[i]; {
			case w == ";" || w == "&&" || w == "||" || w == "|":
				out, cur = appendCommand(out, cur), nil
			case w == ">" || w == ">>" || w == "<" || w == "2>" || w == "2>>":
				i++ // the file
			default:
				cur = append(cur, w)
			}
		}
		out = appendCommand(out, cur)
	}
	return out
}

func appendCommand(out []shellCommand, c shellCommand) []shellCommand {
	if len(c) == 0 {
		return out
	}
	return append(out, c)
}

// shellWords splits a line into words and operators: single and double
// quotes group (and are removed), an unquoted # starts a comment, and
// ;, &, |, <, > stand alone (a digit before > goes with it: 2>).
func shellWords(line string) []string {
	var words []string
	var word strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'' || r == '"':
			end := slices.Index(rs[i+1:], r)
			if end < 0 {
				end = len(rs) - i - 1
			}
			word.WriteString(string(rs[i+1 : i+1+end]))
			inWord = true
			i += end + 1
		case unicode.IsSpace(r):
			flush()
		case r == '#' && !inWord:
			flush()
			return words
		case strings.ContainsRune(";&|<>", r):
			prefix := ""
			if r == '>' && word.String() == "2" {
				prefix, inWord = "2", false
				word.Reset()
			}
			flush()
			op := string(r)
			if i+1 < len(rs) && (rs[i+1] == r && r != ';' || r == '>' && rs[i+1] == '>') {
				op += string(rs[i+1])
				i++
			}
			words = append(words, prefix+op)
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words
}

// checkCommand parses one hcp-rego command line (the words after
// "hcp-rego") as hcp-rego would: the command must exist, every flag be
// one of its flags, and the positional arguments be what it takes. A
// --format value must be one its help names.
func checkCommand(args []string) error {
	root := newRootCommand(streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root {
		return fmt.Errorf("no hcp-rego command in %q", args)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return fmt.Errorf("hcp-rego %s: %w", cmd.Name(), err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return fmt.Errorf("hcp-rego %s: %w", cmd.Name(), err)
	}
	if f := cmd.Flags().Lookup("format"); f != nil && f.Changed {
		if !slices.Contains(strings.FieldsFunc(f.Usage, func(r rune) bool { return r == ' ' || r == ',' }), f.Value.String()) {
			return fmt.Errorf("hcp-rego %s: --format %s: not one of %q", cmd.Name(), f.Value, f.Usage)
		}
	}
	return nil
}

// hcpRegoCommands are the hcp-rego commands of scripts, as "NAME --flag
// ..." strings of the command and the flags given, and the errors of
// those that hcp-rego would refuse.
func hcpRegoCommands(scripts []string) (found []string, errs []error) {
	for _, s := range scripts {
		arrays := map[string][]string{}
		for _, c := range simpleCommands(s) {
			for len(c) > 1 && slices.Contains(shellKeywords, c[0]) {
				c = c[1:]
			}
			if m := arrayAppendRE.FindStringSubmatch(strings.Join(c, " ")); m != nil {
				arrays[m[1]] = append(arrays[m[1]], strings.Fields(m[2])...)
				continue
			}
			if c[0] != "hcp-rego" {
				continue
			}
			c = expandArrays(c, arrays)
			if err := checkCommand(c[1:]); err != nil {
				errs = append(errs, err)
				continue
			}
			summary := []string{c[1]}
			for _, w := range c[2:] {
				if strings.HasPrefix(w, "--") {
					summary = append(summary, w)
				}
			}
			found = append(found, strings.Join(summary, " "))
		}
	}
	return found, errs
}

// shellKeywords are the words that may stand before a command on its
// line: for g in x; do CMD; done.
var shellKeywords = []string{"do", "then", "else", "if", "while", "until", "!", "{"}

// arrayAppendRE is a bash array's append, NAME+=(WORDS), as a CI script
// builds repeated flags: grants+=(--grants "$g").
var arrayAppendRE = regexp.MustCompile(`^(\w+)\+=\((.*)\)$`)

// expandArrays puts in place of each "${NAME[@]}" of c the words that the
// script appends to NAME, once: a loop's body, as hcp-rego sees it for
// one file.
func expandArrays(c shellCommand, arrays map[string][]string) shellCommand {
	var out shellCommand
	for _, w := range c {
		if name, ok := strings.CutPrefix(w, "${"); ok && strings.HasSuffix(name, "[@]}") {
			out = append(out, arrays[strings.TrimSuffix(name, "[@]}")]...)
			continue
		}
		out = append(out, w)
	}
	return out
}

func TestSimpleCommands(t *testing.T) {
	script := "grants=(); for g in grants/*.json; do grants+=(--grants \"$g\"); done; hcp-rego lint packs \"${grants[@]}\"\n" +
		"hcp-rego replay --bundle c.tar.gz x.log.gz --format markdown > replay.md 2> err.txt || code=$? # note\n" +
		"hcp-rego build packs \\\n  -o 'a b.tar.gz' && echo done | tee log\n"
	var got []string
	for _, c := range simpleCommands(script) {
		got = append(got, strings.Join(c, "|"))
	}
	want := []string{
		"grants=()", "for|g|in|grants/*.json", "do|grants+=(--grants|$g)", "done",
		"hcp-rego|lint|packs|${grants[@]}",
		"hcp-rego|replay|--bundle|c.tar.gz|x.log.gz|--format|markdown", "code=$?",
		"hcp-rego|build|packs|-o|a b.tar.gz", "echo|done", "tee|log",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// TestCheckCommand: the check refuses what hcp-rego refuses, so that a
// CI example with a misspelt flag cannot pass.
func TestCheckCommand(t *testing.T) {
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{"test --format github --coverage --threshold 90 .", true},
		{"matrix --diff ../base .", true},
		{"replay --bundle c.tar.gz logs.gz --format markdown --fail-on widen", true},
		{"test --format github --coverage --treshold 90 .", false},
		{"test --format gitlab .", false},
		{"replay --bundle c.tar.gz --format md logs.gz", false},
		{"version extra", false},
		{"lnit packs", false},
	} {
		if err := checkCommand(strings.Fields(tt.line)); (err == nil) != tt.ok {
			t.Errorf("hcp-rego %s: %v", tt.line, err)
		}
	}
	// The flags a script builds in an array are checked where it is used.
	for script, ok := range map[string]bool{
		"a=(); for g in *.json; do a+=(--grants \"$g\"); done; hcp-rego lint packs \"${a[@]}\"": true,
		"a=(); for g in *.json; do a+=(--grant \"$g\"); done; hcp-rego lint packs \"${a[@]}\"":  false,
	} {
		found, errs := hcpRegoCommands([]string{script})
		if ok != (len(errs) == 0) || ok && !slices.Equal(found, []string{"lint --grants"}) {
			t.Errorf("%s: found %q, errors %v", script, found, errs)
		}
	}
}
