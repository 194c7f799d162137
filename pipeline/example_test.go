package pipeline_test

import (
	"fmt"
	"os"

	"github.com/rdx-project/rdx/pipeline"
)

// A verb is one call: the summary of the first two frames of a capture,
// with the closing counts rdx read prints on standard error.
func ExampleRun() {
	res, err := pipeline.Run(pipeline.Config{
		Input: pipeline.Input{File: "../pcaps/rx/pts-ops.pcap"},
		Count: 2,
		Out:   os.Stdout,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d frames; findings: %d errors, %d warnings, %d notes\n", res.Frames, res.Errors, res.Warnings, res.Notes)
	// Output:
	//      1 0.000000 127.0.0.1:46913       → 127.1.0.1:7002        AFS (RX)      94 DATA call 1 seq 1 ser 1 <CI,LAST>; AFS PR NewEntry request
	//      2 0.000598 127.1.0.1:7002        → 127.0.0.1:46913       AFS (RX)      74 DATA call 1 seq 1 ser 1 <LAST>; AFS PR NewEntry reply (request in frame 1, 0.000598s)
	// 2 frames; findings: 0 errors, 0 warnings, 0 notes
}
