package rx_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
	// sealed block as one item (rx.encrypted) and has no such fields.
	// The same sealed block holds the epoch, cid, call numbers and security
	// index, which tshark adds as extra occurrences of the header's fields.
	{Field: "rx.epoch", Reason: "RESPONSE ciphertext decoded as header fields by tshark", Match: tsharktest.TsharkFirst},
	{Field: "rx.cid", Reason: "RESPONSE ciphertext decoded as header fields by tshark", Match: tsharktest.TsharkFirst},
	{Field: "rx.callnumber", Reason: "RESPONSE ciphertext decoded as header fields by tshark", Match: tsharktest.TsharkFirst},
	{Field: "rx.securityindex", Reason: "RESPONSE ciphertext decoded as header fields by tshark", Match: tsharktest.TsharkFirst},
	{Field: "rx.inc_nonce", Reason: "ciphertext decoded as plaintext by tshark"},
	{Field: "rx.level", Reason: "ciphertext decoded as plaintext by tshark"},
}

func TestRxAgainstTshark(t *testing.T) {
	caps, _ := filepath.Glob("../../pcaps/rx/*.pcap")
	if len(caps) != 12 {
		t.Fatalf("expected the 12 OpenAFS captures in pcaps/rx, found %d", len(caps))
	}
	total, equal := 0, 0
	for _, c := range caps {
		t.Run(filepath.Base(c), func(t *testing.T) {
			// tshark-truth decoded these with -d udp.port==7000-7010,rx.
			opts := tsharktest.DecodeAs(t, "udp.port==7000-7010,rx")
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
	opts := tsharktest.DecodeAs(t, "udp.port==7100,rx")
	res := tsharktest.Compare(t, lossyPcap, lossyPcap+".tshark-fields.tsv", []string{"rx."}, nil, opts)
	if res.Compared < 10000 || len(res.Fields) < 20 {
		t.Errorf("only %d values in %d fields compared: the test proves little", res.Compared, len(res.Fields))
	}
	t.Logf("%d rx values compared, %d equal, %d fields", res.Compared, res.Equal, len(res.Fields))
}

// TestRxkadResponseTsharkWrong shows, on every rxkad v2 RESPONSE of the
// OpenAFS captures, that tshark decodes ciphertext as plain text. OpenAFS
// src/rxkad/private_data.h, struct rxkad_v2ChallengeResponse: version, spare,
// then 40 octets "encrypted with session key" (endpoint {epoch, cid, cksum,
// securityIndex}, callNumbers[4], incChallengeID, level), kvno, ticketLen;
// rxkad_server.c decrypts that block (fc_cbc_encrypt ... FCRYPT_DECRYPT)
// before reading incChallengeID. tshark's rx.inc_nonce is never the
// CHALLENGE's nonce + 1 and its rx.level is never a level (0-2); rdx shows
// the block as one item (rx.encrypted, FT_NONE as in tshark) and no such fields.
func TestRxkadResponseTsharkWrong(t *testing.T) {
	caps, _ := filepath.Glob("../../pcaps/rx/*.pcap")
	responses := 0
	for _, c := range caps {
		tab, err := tsharktest.ReadTSV(c + ".tshark-fields.tsv")
		if err != nil {
			t.Fatal(err)
		}
		get := tab.Get
		opts := tsharktest.DecodeAs(t, "udp.port==7000-7010,rx")
		got, err := tsharktest.Decode(c, opts)
		if err != nil {
			t.Fatal(err)
		}
		nonce := map[string]uint64{} // header cid -> last CHALLENGE nonce
		for n := uint64(1); n <= uint64(len(tab.Rows)); n++ {
			row := tab.Rows[n]
			cid, _, _ := strings.Cut(get(row, "rx.cid"), ";")
			switch get(row, "rx.type") {
			case "6": // CHALLENGE
				v, err := strconv.ParseUint(strings.TrimPrefix(get(row, "rx.nonce"), "0x"), 16, 32)
				if err != nil {
					t.Fatalf("%s frame %d: nonce %q", c, n, get(row, "rx.nonce"))
				}
				nonce[cid] = v
			case "7": // RESPONSE
				ch, ok := nonce[cid]
				if !ok || get(row, "rx.version") != "2" {
					continue
				}
				responses++
				inc, err := strconv.ParseUint(strings.TrimPrefix(get(row, "rx.inc_nonce"), "0x"), 16, 32)
				if err != nil {
					t.Fatalf("%s frame %d: tshark inc_nonce %q", c, n, get(row, "rx.inc_nonce"))
				}
				if inc == (ch+1)&0xffffffff {
					t.Errorf("%s frame %d: tshark's inc_nonce is the plain nonce+1: the block was not sealed?", c, n)
				}
				if lvl, _ := strconv.ParseUint(get(row, "rx.level"), 10, 32); lvl <= 2 {
					t.Errorf("%s frame %d: tshark's level %d is a real level", c, n, lvl)
				}
				r := got[n]
				if len(r["rx.inc_nonce"])+len(r["rx.level"]) != 0 {
					t.Errorf("%s frame %d: rdx decodes the sealed block: %v %v", c, n, r["rx.inc_nonce"], r["rx.level"])
				}
				if enc := r["rx.encrypted"]; len(enc) != 1 || get(row, "rx.encrypted") != enc[0] {
					t.Errorf("%s frame %d: rdx rx.encrypted %q, tshark %q: want one item marking the sealed block", c, n, enc, get(row, "rx.encrypted"))
				}
				if cids := r["rx.cid"]; len(cids) != 1 || cids[0] != cid {
					t.Errorf("%s frame %d: rdx rx.cid %q, want only the header's %s", c, n, cids, cid)
				}
			}
		}
	}
	if responses < 8 {
		t.Fatalf("only %d rxkad v2 RESPONSEs checked", responses)
	}
	t.Logf("%d rxkad RESPONSEs: tshark's inc_nonce and level are ciphertext in all", responses)
}
