#!/usr/bin/env bash
# base-truth CAPTURE...: tshark's decode of the fields everybody types (frame.*, eth.*, vlan.id, ip.*,
# ipv6.*, udp.*, tcp.*) and the summary columns (_ws.col.*) for every frame of each CAPTURE, two passes and no name resolution (-2 -n, as
# rdx reads), as CAPTURE.base-fields.tsv.gz; internal/tsharktest's TestBaseFieldsMatchTshark compares
# rdx with it. Columns no frame has a value in are left out. Needs tshark (4.0.17 made the stored files).
set -euo pipefail
fields=(frame.number _ws.col.No. _ws.col.Time _ws.col.Source _ws.col.Destination _ws.col.Protocol _ws.col.Length _ws.col.Info
  frame.time frame.time_relative frame.time_delta frame.time_epoch frame.len frame.cap_len
  frame.protocols frame.interface_id
  eth.dst eth.src eth.addr eth.type eth.dst.lg eth.dst.ig eth.src.lg eth.src.ig eth.lg eth.ig vlan.id vlan.priority vlan.etype
  ip.version ip.hdr_len ip.dsfield ip.dsfield.dscp ip.dsfield.ecn ip.len ip.id ip.flags ip.flags.rb ip.flags.df ip.flags.mf
  ip.frag_offset ip.ttl ip.proto ip.checksum ip.checksum.status ip.src ip.dst ip.addr ip.src_host ip.dst_host ip.host
  ipv6.version ipv6.tclass ipv6.tclass.dscp ipv6.tclass.ecn ipv6.flow ipv6.plen ipv6.nxt ipv6.hlim ipv6.src ipv6.dst
  ipv6.addr ipv6.src_host ipv6.dst_host ipv6.host
  udp.srcport udp.dstport udp.port udp.length udp.checksum udp.checksum.status udp.stream
  tcp.srcport tcp.dstport tcp.port tcp.stream tcp.len tcp.seq tcp.seq_raw tcp.nxtseq tcp.ack tcp.ack_raw tcp.hdr_len
  tcp.flags tcp.flags.res tcp.flags.ae tcp.flags.cwr tcp.flags.ece tcp.flags.urg tcp.flags.ack tcp.flags.push
  tcp.flags.reset tcp.flags.syn tcp.flags.fin tcp.flags.str tcp.window_size_value tcp.window_size
  tcp.window_size_scalefactor tcp.checksum tcp.checksum.status tcp.urgent_pointer tcp.options tcp.option_kind
  tcp.option_len tcp.options.mss tcp.options.mss_val tcp.options.nop tcp.options.eol tcp.options.sack_perm
  tcp.options.timestamp tcp.options.timestamp.tsval tcp.options.timestamp.tsecr tcp.options.wscale
  tcp.options.wscale.shift tcp.options.wscale.multiplier tcp.options.sack tcp.options.sack_le tcp.options.sack_re
  tcp.options.sack.count
  tcp.analysis.retransmission tcp.analysis.fast_retransmission tcp.analysis.spurious_retransmission
  tcp.analysis.out_of_order tcp.analysis.lost_segment tcp.analysis.duplicate_ack tcp.analysis.duplicate_ack_num
  tcp.analysis.duplicate_ack_frame tcp.analysis.keep_alive tcp.analysis.acks_frame tcp.analysis.ack_rtt
  tcp.analysis.initial_rtt tcp.time_relative tcp.time_delta)
args=()
for f in "${fields[@]}"; do args+=(-e "$f"); done
for cap in "$@"; do
  tshark -2 -n -r "$cap" -T fields -E header=y -E separator=/t -E occurrence=a -E aggregator=';' "${args[@]}" 2>/dev/null |
    awk -F'\t' -v OFS='\t' '{row[NR]=$0; for(i=1;i<=NF;i++) if(NR>1 && $i!="") used[i]=1; if(NF>nf) nf=NF}
      END{for(r=1;r<=NR;r++){n=split(row[r],a,"\t"); s=""; first=1; for(i=1;i<=nf;i++) if(used[i]||i==1){s=s (first?"":"\t") a[i]; first=0} print s}}' |
    gzip -9n > "$cap.base-fields.tsv.gz"
  echo "$cap: $(($(zcat "$cap.base-fields.tsv.gz" | wc -l)-1)) frames, $(zcat "$cap.base-fields.tsv.gz" | head -1 | awk -F'\t' '{print NF}') columns"
done
