package main

import (
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"fairbench/calibrate"
	"fairbench/check"
	"fairbench/models"
	"fairbench/reports/reproduce"
	"fairbench/solvers/registry"
)

// completeFn completes a flag's value or an argument.
type completeFn = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

func words(list func() []string) completeFn {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return list(), cobra.ShellCompDirectiveNoFileComp
	}
}

func files(exts ...string) completeFn {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

func policyNames() []string { return registry.Default().Names() }

// gpuTypes are the catalogue's GPU types and those calibrate has a
// datasheet for.
func gpuTypes() []string {
	var out []string
	for _, g := range models.Catalogue().GPUTypes {
		out = append(out, g.Name)
	}
	if d, err := calibrate.BuiltinData(); err == nil {
		for _, n := range slices.Sorted(maps.Keys(d.GPUs)) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// completions says how each command's arguments and flags complete, by
// command path (the root's name left out) and flag name; a flag a command
// lacks is skipped.
var completions = map[string]struct {
	args  completeFn
	flags map[string]completeFn
}{
	"simulate":              {args: files("yaml", "yml"), flags: map[string]completeFn{"policy": words(policyNames)}},
	"grid":                  {args: files("yaml", "yml"), flags: map[string]completeFn{"policy": words(policyNames)}},
	"solve":                 {args: files("json", "yaml", "yml"), flags: map[string]completeFn{"policy": words(policyNames)}},
	"reproduce":             {args: words(reproduce.Names)},
	"report":                {flags: map[string]completeFn{"matrix": files("csv", "json"), "calibration": files("csv", "json")}},
	"calibrate extrapolate": {flags: map[string]completeFn{"gpu": words(gpuTypes)}},
	"check": {flags: map[string]completeFn{
		"policy": words(policyNames), "props": words(check.Names), "claims": words(check.Names),
		"mode": words(func() []string {
			return []string{string(check.Auto), string(check.OneDecision), string(check.Realised)}
		}),
		"replay": files("json", "yaml", "yml"), "junit": files("xml"),
	}},
}

// registerCompletions attaches completions to the commands under root:
// policy names, experiments, properties, GPU types and file kinds.
func registerCompletions(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("config", files("yaml", "yml"))
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		if spec, ok := completions[path]; ok {
			if spec.args != nil && c.ValidArgsFunction == nil && len(c.ValidArgs) == 0 {
				c.ValidArgsFunction = spec.args
			}
			for name, fn := range spec.flags {
				if c.Flags().Lookup(name) != nil {
					_ = c.RegisterFlagCompletionFunc(name, fn)
				}
			}
		}
		for _, sub := range c.Commands() {
			p := sub.Name()
			if path != "" {
				p = path + " " + p
			}
			walk(sub, p)
		}
	}
	walk(root, "")
}
