package main

import "fairbench/internal/texttable"

// width is the width tables are fitted to: texttable.DefaultWidth, or no
// limit with --wide.
func (s *settings) width() int {
	if s.v.GetBool("wide") {
		return 0
	}
	return texttable.DefaultWidth
}
