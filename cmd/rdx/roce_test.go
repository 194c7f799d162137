package main

// rdsIBFields is the -T fields column set of the RDS over RoCE golden: the
// RDS header of each message (on the frame completing its last fragment),
// the fragment fields, and the RDMA CM exchange's private data.
var rdsIBFields = []string{"-e", "frame.number", "-e", "infiniband.bth.opcode", "-e", "rds.seq", "-e", "rds.ack",
	"-e", "rds.len", "-e", "rds.sport", "-e", "rds.dport", "-e", "rds.flags", "-e", "rds.credit", "-e", "rds.csum.status",
	"-e", "rds.msg_type", "-e", "rds.ib.qp", "-e", "rds.ib.fragment", "-e", "rds.ib.fragment_len", "-e", "rds.ib.fragment_count",
	"-e", "rds.frame_count", "-e", "rds.cong.count", "-e", "infiniband.mad.attributeid", "-e", "infiniband.cm.req.serviceid",
	"-e", "infiniband.cm.req.ip_cm.sport", "-e", "infiniband.cm.req.ip_cm.sip4", "-e", "infiniband.cm.req.ip_cm.dip4",
	"-e", "rds.cm.saddr", "-e", "rds.cm.daddr", "-e", "rds.cm.protocol_major", "-e", "rds.cm.protocol_minor",
	"-e", "rds.cm.protocol_minor_mask", "-e", "rds.cm.ack_seq", "-e", "rds.cm.credit", "-e", "_ws.expert.message", "-E", "header=y"}

func roceGoldenCases() map[string][]string {
	c := "../../pcaps/kernel/rds_rdma_roce.pcap"
	return map[string][]string{
		"rds_rdma_roce.summary": {"read", "--color", "never", c},
		"rds_rdma_roce.fields":  append([]string{"read", "-T", "fields", c}, rdsIBFields...),
	}
}
