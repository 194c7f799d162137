package export_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdx-project/rdx/export"
	"github.com/rdx-project/rdx/pipeline"
)

// BenchmarkExport exports a capture (RDX_EXPORT_PCAP, e.g. one of
// `go run ./internal/cmd/genrx -n 1000000 -o X`; else a small real one) per
// iteration and reports frames/s and the frames table's bytes per frame.
// Compare with BenchmarkDecodeOnly for the export's own cost.
func BenchmarkExport(b *testing.B) { benchExport(b, true) }

// BenchmarkDecodeOnly is the same run without the export sink.
func BenchmarkDecodeOnly(b *testing.B) { benchExport(b, false) }

func benchExport(b *testing.B, export_ bool) {
	file := os.Getenv("RDX_EXPORT_PCAP")
	if file == "" {
		file = "../pcaps/rx/vos-dump-bulk.pcap"
	}
	dir := b.TempDir()
	var frames, size int64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cfg := pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true}
		var s *export.Sink
		if export_ {
			var err error
			s, err = export.New(export.Options{Dir: dir, Host: "h", Capture: filepath.Base(file), Overwrite: true})
			if err != nil {
				b.Fatal(err)
			}
			cfg.Sinks = []pipeline.Sink{s}
		}
		res, err := pipeline.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		frames += int64(res.Frames)
		if s != nil {
			st, err := os.Stat(s.Files()[0])
			if err != nil {
				b.Fatal(err)
			}
			size += st.Size()
		}
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
	if size > 0 {
		b.ReportMetric(float64(size)/float64(frames), "B/frame")
	}
}
