#!/usr/bin/env bash
# icmp-truth CAPTURE [TSHARK-ARGS...]: tshark's decode of the ICMP, ICMPv6 and ARP frames of CAPTURE
# (their icmp/icmpv6/arp fields, the IP/UDP fields of the packet an error quotes, and rx.* of a quoted
# Rx packet), one row per frame, two passes (as rdx reads), as CAPTURE.icmp-arp.tsv; dissect/icmp
# compares rdx with it.
# Extra arguments go to tshark (e.g. -d udp.port==7000-7010,rx). Needs tshark.
set -euo pipefail
cap=$1; shift
fields=(-e frame.number -e _ws.col.Info -e frame.protocols -e ip.src -e ip.dst -e ip.ttl -e ip.id -e ip.len -e ip.proto -e udp.srcport -e udp.dstport -e udp.length -e udp.checksum)
while IFS=$'\t' read -r kind _ abbrev _ proto _; do
  [ "$kind" = F ] || continue
  case "$proto" in icmp|icmpv6|arp|rx) fields+=(-e "$abbrev");; esac
done < <(tshark -G fields 2>/dev/null)
tshark -2 -r "$cap" "$@" -Y "icmp || icmpv6 || arp" -T fields -E header=y -E separator=/t -E occurrence=a -E aggregator=';' "${fields[@]}" 2>/dev/null |
  awk -F'\t' -v OFS='\t' '{row[NR]=$0; for(i=1;i<=NF;i++) if(NR>1 && $i!="") used[i]=1; if(NF>nf) nf=NF}
    END{for(r=1;r<=NR;r++){n=split(row[r],a,"\t"); s=""; first=1; for(i=1;i<=nf;i++) if(used[i]||i==1){s=s (first?"":"\t") a[i]; first=0} print s}}' > "$cap.icmp-arp.tsv"
