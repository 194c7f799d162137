package main

// What the full and the lean build (lean.go) share of the commands the lean
// one leaves to rdx-full: their names and one-line help, as `rdx --help`
// lists them, and how read's -z asks for a picture.
const (
	plotUse     = "plot KIND FILE... -o OUT.svg|OUT.png"
	plotShort   = "Draw a capture as a picture (IO graph, response times, QP timeline, RTT, check failures) in SVG or PNG"
	reportUse   = "report FILE... -o REPORT.html"
	reportShort = "Write one self-contained HTML page: overview, checks, statistics, flows, plots and findings with their frames' trees"
	exportUse   = "export -w DIR FILE..."
	exportShort = "Write captures as Parquet tables (frames, findings, checks) for DuckDB, Spark, Trino, ClickHouse"

	// zPlotSep starts the FILE of -z io,stat,INTERVAL,plot=FILE.
	zPlotSep = ",plot="
)
