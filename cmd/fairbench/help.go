package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"fairbench/internal/texttable"
)

// finish gives the command tree what every command shares: help fitted
// to 100 columns, "did you mean" for unknown flags, and shell completion
// of policy names, experiments, properties, GPU types and file kinds.
func finish(root *cobra.Command) {
	cobra.AddTemplateFunc("flagUsages", func(fs *pflag.FlagSet) string {
		return fs.FlagUsagesWrapped(texttable.DefaultWidth)
	})
	cobra.AddTemplateFunc("wrapShort", func(short string, pad int) string {
		lines := texttable.Wrap(short, texttable.DefaultWidth-pad-3)
		return strings.Join(lines, "\n"+strings.Repeat(" ", pad+3))
	})
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages", "flagUsages .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages", "flagUsages .InheritedFlags")
	t = strings.ReplaceAll(t, "{{rpad .Name .NamePadding }} {{.Short}}", "{{rpad .Name .NamePadding }} {{wrapShort .Short .NamePadding}}")
	root.SetUsageTemplate(t)
	root.SetFlagErrorFunc(flagError)
	registerCompletions(root)
}
