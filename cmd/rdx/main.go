// Command rdx dissects and analyzes the reliable-datagram and RDMA protocol
// family: Rx/AFS, RDS, RPC-over-RDMA, iWARP, InfiniBand/RoCE and RDP.
package main

import (
	"os"

	// Before the packages that allocate most at init: see the package.
	_ "github.com/rdx-project/rdx/internal/startup"

	"github.com/rdx-project/rdx/internal/iostreams"
)

func main() {
	stop := startProfile()
	code := run(iostreams.System(), os.Args[1:])
	stop()
	os.Exit(code)
}
