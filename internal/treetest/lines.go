package treetest

import "strings"

// Lines splits a file's text into its lines as an editor counts them: a
// line ends at "\r\n", "\n" or a lone "\r". The fuzz targets hold every
// reported position to these lines; it is written apart from the
// position index that it checks.
func Lines(text string) []string {
	return strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text), "\n")
}
