package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/active/synth"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/pipeline"
)

// Shell completion: cobra's `rdx completion bash|zsh|fish|powershell`
// writes the script; these functions give it rdx's own words for the
// flags that take them (field names, -T formats, -z tables, protocols,
// synth scenarios).

// completeWords completes from a fixed list.
func completeWords(words ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, w := range words {
			if strings.HasPrefix(w, prefix) {
				out = append(out, w)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFields completes field names (-e).
func completeFields(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, f := range dissect.Fields() {
		if strings.HasPrefix(f.Abbrev, prefix) {
			out = append(out, f.Abbrev)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeStats completes -z tables. StatHelp builds a whole engine
// (~430 KB), so it runs when a shell asks, not when read's flags are made.
func completeStats(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	return completeWords(pipeline.StatHelp()...)(cmd, args, prefix)
}

// completeProtocols completes protocol names (-O), after a comma too.
func completeProtocols(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	done, last := "", prefix
	if i := strings.LastIndexByte(prefix, ','); i >= 0 {
		done, last = prefix[:i+1], prefix[i+1:]
	}
	var out []string
	for _, p := range dissect.Protocols() {
		if strings.HasPrefix(p.Abbrev, last) {
			out = append(out, done+p.Abbrev)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// addReadCompletions registers read's flag completions.
func addReadCompletions(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("output-format", completeWords("text", "json", "jsonl", "fields"))
	_ = cmd.RegisterFlagCompletionFunc("field", completeFields)
	_ = cmd.RegisterFlagCompletionFunc("statistics", completeStats)
	_ = cmd.RegisterFlagCompletionFunc("only-protocols", completeProtocols)
	_ = cmd.RegisterFlagCompletionFunc("time-format", completeWords("r", "a", "ad", "adoy", "u", "ud", "udoy", "d", "dd", "e"))
	_ = cmd.RegisterFlagCompletionFunc("write-format", completeWords("pcapng", "pcap", "nsecpcap"))
	_ = cmd.RegisterFlagCompletionFunc("color", completeWords("auto", "always", "never"))
}

// completeScenarios completes synth's SCENARIO argument.
func completeScenarios(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, s := range synth.Scenarios() {
		names = append(names, s.Name)
	}
	return completeWords(names...)(nil, nil, prefix)
}
