package render

import "github.com/rdx-project/rdx/dissect"

// Info appends f's Info column exactly as Summary prints it (without
// colour): exporters store it as a column.
func Info(dst []byte, f *dissect.Frame) []byte { return appendInfo(dst, f) }
