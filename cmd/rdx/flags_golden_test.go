package main

// flagGoldenCases are the goldens of issue 14's tshark flags (TestGolden,
// and TestGoldenWorkers runs each with -j 2 and 3).
func flagGoldenCases() map[string][]string {
	bos := "../../pcaps/rx/bos-queries.pcap"
	afs := "../../pcaps/public/the-tcpdump-group+tcpdump__afs.pcap"
	return map[string][]string{
		// -t ud: UTC date and time, the same on every machine
		"flags-t-ud.summary": {"read", "--color", "never", "-t", "ud", bos},
		// -t dd with a filter: deltas from the previous shown frame (one worker under -j)
		"flags-t-dd-filter.summary": {"read", "--color", "never", "-t", "dd", "-Y", "frame.len > 90", bos},
		// -t dd without a filter runs on the workers: the previous frame is the previous shown
		"flags-t-dd.summary": {"read", "--color", "never", "-t", "dd", "-c", "30", bos},
		// -u hms past a minute: "1m  6.505222s"
		"flags-u-hms.summary": {"read", "--color", "never", "-u", "hms", afs},
		// the Time column as a field follows -t too
		"flags-t-e.fields": {"read", "-T", "fields", "-t", "e", "-e", "frame.number", "-e", "_ws.col.Time", "-c", "5", bos},
		// -O: the tree of Rx and AFS only, the other protocols one line each (as tshark -O rx,afs)
		"flags-O-rx-afs.verbose": {"read", "-O", "rx,afs", "-c", "4", bos},
		// -E occurrence (tshark's values on this capture: first 127.0.0.1, last 127.1.0.1 for frame 1) and quote
		"flags-E-occurrence-f.fields": {"read", "-T", "fields", "-e", "frame.number", "-e", "ip.addr", "-E", "occurrence=f", "-E", "quote=d", "-c", "4", bos},
		"flags-E-occurrence-l.fields": {"read", "-T", "fields", "-e", "frame.number", "-e", "ip.addr", "-E", "occurrence=l", "-E", "quote=s", "-c", "4", bos},
		"flags-E-occurrence-a.fields": {"read", "-T", "fields", "-e", "frame.number", "-e", "ip.addr", "-E", "occurrence=a", "-E", "quote=n", "-c", "4", bos},
	}
}
