package rx_test

import (
	"path/filepath"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// rxKnown lists every accepted difference between rdx and tshark 4.0.17 on
// rx.* fields, each with the reason tshark is wrong.
var rxKnown = []tsharktest.Known{
	// A jumbogram carries several DATA packets (draft-zeldovich §2.5; Linux
	// rxrpc_jumbo_header): rdx decodes every sub-packet, tshark only the first
	// header, so rdx has more occurrences; the first must agree.
	{Field: "*", Reason: "jumbogram sub-packets (tshark decodes only the first)", Match: tsharktest.FirstOf},
	// The rxkad v2 RESPONSE holds 40 octets sealed with the session key
	// (OpenAFS rxkad_v2Response.encrypted); tshark reads two words of that
	// ciphertext as if they were the plaintext nonce+1 and level. rdx shows the
	// sealed block as opaque bytes and has no such fields.
	// The same sealed block holds the epoch, cid, call numbers and security
	// index, which tshark adds as extra occurrences of the header's fields.
	{Field: "rx.epoch", Reason: "RESPONSE ciphertext decoded as header fields by tshark", Match: tsharktest.TsharkFirst},
	{Field: "rx.cid", Reason: "RESPONSE ciphertext decoded as header fields by tshark", Match: tsharktest.TsharkFirst},
	{Field: "rx.callnumber", Reason: "RESPONSE ciphertext decoded as header fields by tshark", Match: tsharktest.TsharkFirst},
	{Field: "rx.securityindex", Reason: "RESPONSE ciphertext decoded as header fields by tshark", Match: tsharktest.TsharkFirst},
	{Field: "rx.inc_nonce", Reason: "ciphertext decoded as plaintext by tshark"},
	{Field: "rx.level", Reason: "ciphertext decoded as plaintext by tshark"},
	{Field: "rx.encrypted", Reason: "tshark marks the sealed block with an empty item; rdx gives its bytes",
		Match: func(_ uint64, rdx, ts string) bool { return ts == "1" && len(rdx) == 80 }},
}

func TestRxAgainstTshark(t *testing.T) {
	caps, _ := filepath.Glob("../../pcaps/rx/*.pcap")
	if len(caps) != 11 {
		t.Fatalf("expected the 11 OpenAFS captures in pcaps/rx, found %d", len(caps))
	}
	total, equal := 0, 0
	for _, c := range caps {
		t.Run(filepath.Base(c), func(t *testing.T) {
			// tshark-truth decoded these with -d udp.port==7000-7010,rx.
			opts := dissect.Options{}
			da, err := dissect.ParseDecodeAs("udp.port==7000-7010,rx")
			if err != nil {
				t.Fatal(err)
			}
			opts.DecodeAs = append(opts.DecodeAs, da)
			res := tsharktest.Compare(t, c, c+".tshark-fields.tsv", []string{"rx."}, rxKnown, opts)
			if res.Compared == 0 {
				t.Fatal("no rx field compared")
			}
			total += res.Compared
			equal += res.Equal
			for k, n := range res.Known {
				t.Logf("accepted: %d x %s", n, k)
			}
		})
	}
	t.Logf("rx fields: %d values compared, %d equal, %d explained differences", total, equal, total-equal)
}

// TestLossyRxAgainstTshark: the real AF_RXRPC capture with loss (DATA resent,
// ACKs with NACKs, out-of-sequence and duplicate ACKs) matches tshark's rx.*
// decode (made with -d udp.port==7100,rx) with no accepted difference.
func TestLossyRxAgainstTshark(t *testing.T) {
	tsharktest.Capture(t, lossyPcap)
	da, err := dissect.ParseDecodeAs("udp.port==7100,rx")
	if err != nil {
		t.Fatal(err)
	}
	res := tsharktest.Compare(t, lossyPcap, lossyPcap+".tshark-fields.tsv", []string{"rx."}, nil, dissect.Options{DecodeAs: []dissect.DecodeAs{da}})
	if res.Compared < 10000 || len(res.Fields) < 20 {
		t.Errorf("only %d values in %d fields compared: the test proves little", res.Compared, len(res.Fields))
	}
	t.Logf("%d rx values compared, %d equal, %d fields", res.Compared, res.Equal, len(res.Fields))
}
