package ibcm

import "github.com/rdx-project/rdx/dissect"

// CM attribute IDs (IBA 12.6, MAD attribute of class 0x07).
const (
	AttrREQ  = 0x0010
	AttrMRA  = 0x0011
	AttrREJ  = 0x0012
	AttrREP  = 0x0013
	AttrRTU  = 0x0014
	AttrDREQ = 0x0015
	AttrDREP = 0x0016
	AttrSIDR = 0x0017
	AttrSREP = 0x0018
	AttrLAP  = 0x0019
	AttrAPR  = 0x001A
)

// Wireshark's names for the CM messages (its info column says "CM: ConnectRequest").
var attrNames = map[uint64]string{AttrREQ: "ConnectRequest", AttrMRA: "MsgRcptAck", AttrREJ: "ConnectReject",
	AttrREP: "ConnectReply", AttrRTU: "ReadyToUse", AttrDREQ: "DisconnectRequest", AttrDREP: "DisconnectReply",
	AttrSIDR: "ServiceIDResReq", AttrSREP: "ServiceIDResReqResp", AttrLAP: "LoadAlternatePath", AttrAPR: "AlternatePathResponse"}

var methodNames = map[uint64]string{0x01: "Get()", 0x02: "Set()", 0x03: "Send()", 0x81: "GetResp()", 0x06: "Trap()", 0x07: "Report()"}

var classNames = map[uint64]string{0x01: "Subnet Management (LID routed)", 0x81: "Subnet Management (directed route)",
	0x03: "Subnet Administration", 0x04: "Performance Management", 0x07: "Communication Management"}

var psNames = map[uint64]string{0x02: "RDMA_PS_IPOIB", 0x06: "RDMA_PS_TCP", 0x11: "RDMA_PS_UDP", 0x3F: "RDMA_PS_IB"}

var rejReasons = map[uint64]string{1: "No QP available", 2: "No EEC available", 3: "No resources available",
	4: "Timeout", 5: "Unsupported request", 6: "Invalid Communication ID", 7: "Invalid Communication Instance",
	8: "Invalid Service ID", 9: "Invalid Transport Service Type", 10: "Stale connection", 11: "RDC does not exist",
	12: "Primary Remote Port GID rejected", 13: "Primary Remote Port LID rejected", 14: "Invalid Primary SL",
	15: "Invalid Primary Traffic Class", 16: "Invalid Primary Hop Limit", 17: "Invalid Primary Packet Rate",
	18: "Alternate Remote Port GID rejected", 19: "Alternate Remote Port LID rejected", 20: "Invalid Alternate SL",
	21: "Invalid Alternate Traffic Class", 22: "Invalid Alternate Hop Limit", 23: "Invalid Alternate Packet Rate",
	24: "Port Redirection", 26: "Invalid Path MTU", 27: "Insufficient Responder Resources", 28: "Consumer Reject",
	29: "RNR Retry Count Reject", 30: "Duplicate Local Comm ID", 31: "Unsupported Class Version",
	32: "Invalid Primary Flow Label", 33: "Invalid Alternate Flow Label"}

var (
	PCM = dissect.RegisterProto("ibcm", "InfiniBand Communication Management",
		"CM MADs on QP1 (REQ/REP/RTU/REJ/DREQ/DREP/MRA) and RDMA CM private data; fields keep Wireshark's infiniband.mad.* / infiniband.cm.* names")

	fMAD         = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad", Name: "MAD (Management Datagram) Common Header", Type: dissect.TBytes, Proto: "ibcm"})
	fBaseVer     = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.baseversion", Name: "Base Version", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fClass       = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.mgmtclass", Name: "Management Class", Type: dissect.TUint8, Base: dissect.BaseHex, Names: classNames, Proto: "ibcm"})
	fClassVer    = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.classversion", Name: "Class Version", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fMethod      = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.method", Name: "Method", Type: dissect.TUint8, Base: dissect.BaseHex, Names: methodNames, Proto: "ibcm"})
	fStatus      = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.status", Name: "Status", Type: dissect.TUint16, Base: dissect.BaseHex, Proto: "ibcm"})
	fClassSpec   = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.classspecific", Name: "Class Specific", Type: dissect.TUint16, Base: dissect.BaseHex, Proto: "ibcm"})
	fTID         = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.transactionid", Name: "Transaction ID", Type: dissect.TUint64, Base: dissect.BaseHex, Proto: "ibcm"})
	fAttrID      = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.attributeid", Name: "Attribute ID", Type: dissect.TUint16, Base: dissect.BaseHex, Names: attrNames, Proto: "ibcm"})
	fAttrMod     = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.attributemodifier", Name: "Attribute Modifier", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fMADData     = dissect.Register(&dissect.Field{Abbrev: "infiniband.mad.data", Name: "MAD Data Payload", Type: dissect.TBytes, Proto: "ibcm"})
	fReqComm     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req", Name: "Local Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm", Desc: "REQ: Wireshark names the REQ's local communication ID after the message"})
	fSID         = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.serviceid", Name: "ServiceID", Type: dissect.TUint64, Base: dissect.BaseHex, Proto: "ibcm"})
	fSIDPrefix   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.serviceid.prefix", Name: "Prefix", Type: dissect.TBytes, Proto: "ibcm"})
	fSIDProto    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.serviceid.protocol", Name: "Protocol", Type: dissect.TUint8, Base: dissect.BaseHex, Names: psNames, Proto: "ibcm"})
	fSIDPort     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.serviceid.dport", Name: "Destination Port", Type: dissect.TUint16, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqGUID     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.localcaguid", Name: "Local CA GUID", Type: dissect.TUint64, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqQKey     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.localqkey", Name: "Local Q_Key", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqQPN      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.localqpn", Name: "Local QPN", Type: dissect.TUint24, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqResp     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.responderres", Name: "Responder Resources", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqInit     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.initdepth", Name: "Initiator Depth", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqPSN      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.startpsn", Name: "Starting PSN", Type: dissect.TUint24, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqPKey     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.pkey", Name: "Partition Key", Type: dissect.TUint16, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqLLID     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_locallid", Name: "Primary Local Port LID", Type: dissect.TUint16, Proto: "ibcm"})
	fReqRLID     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_remotelid", Name: "Primary Remote Port LID", Type: dissect.TUint16, Proto: "ibcm"})
	fReqLGID     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_localgid", Name: "Primary Local Port GID", Type: dissect.TIPv6, Proto: "ibcm"})
	fReqRGID     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_remotegid", Name: "Primary Remote Port GID", Type: dissect.TIPv6, Proto: "ibcm"})
	fReqLGID4    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_localgid_ipv4", Name: "Primary Local Port GID", Type: dissect.TIPv4, Proto: "ibcm", Desc: "an IPv4-mapped GID (RoCE)"})
	fReqRGID4    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_remotegid_ipv4", Name: "Primary Remote Port GID", Type: dissect.TIPv4, Proto: "ibcm", Desc: "an IPv4-mapped GID (RoCE)"})
	fIPCM        = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm", Name: "IP CM Request Msg", Type: dissect.TBytes, Proto: "ibcm", Desc: "RDMA CM header (struct cma_hdr) + consumer private data"})
	fIPCMMaj     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.majv", Name: "IP CM Major Version", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fIPCMMin     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.minv", Name: "IP CM Minor Version", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fIPCMIPV     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.ipv", Name: "IP CM IP Version", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fIPCMRes     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.reserved", Name: "IP CM Reserved", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fIPCMSport   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.sport", Name: "IP CM Source Port", Type: dissect.TUint16, Base: dissect.BaseHex, Proto: "ibcm"})
	fIPCMSIP4    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.sip4", Name: "IP CM Source IP", Type: dissect.TIPv4, Proto: "ibcm"})
	fIPCMDIP4    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.dip4", Name: "IP CM Destination IP", Type: dissect.TIPv4, Proto: "ibcm"})
	fIPCMSIP6    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.sip6", Name: "IP CM Source IP", Type: dissect.TIPv6, Proto: "ibcm"})
	fIPCMDIP6    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.dip6", Name: "IP CM Destination IP", Type: dissect.TIPv6, Proto: "ibcm"})
	fIPCMPriv    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ip_cm.private", Name: "IP CM Consumer PrivateData", Type: dissect.TBytes, Proto: "ibcm"})
	fRepComm     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep", Name: "Local Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepRComm    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.remotecommid", Name: "Remote Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepQKey     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.localqkey", Name: "Local Q_Key", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepQPN      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.localqpn", Name: "Local QPN", Type: dissect.TUint24, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepEECN     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.localeecn", Name: "Local EE Context Number", Type: dissect.TUint24, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepPSN      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.startpsn", Name: "Starting PSN", Type: dissect.TUint24, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepResp     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.respres", Name: "Responder Resources", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepInit     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.initdepth", Name: "Initiator Depth", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepGUID     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.localcaguid", Name: "Local CA GUID", Type: dissect.TUint64, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepPriv     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.private", Name: "PrivateData", Type: dissect.TBytes, Proto: "ibcm"})
	fRTULComm    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rtu.localcommid", Name: "Local Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fRTURComm    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rtu.remotecommid", Name: "Remote Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fRTUPriv     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rtu.private", Name: "PrivateData", Type: dissect.TBytes, Proto: "ibcm"})
	fRejLComm    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rej.localcommid", Name: "Local Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fRejRComm    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rej.remotecommid", Name: "Remote Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fRejReason   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rej.reason", Name: "Reason", Type: dissect.TUint16, Names: rejReasons, Proto: "ibcm"})
	fRejPriv     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rej.private", Name: "PrivateData", Type: dissect.TBytes, Proto: "ibcm"})
	fDreqLComm   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.dreq.localcommid", Name: "Local Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fDreqRComm   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.dreq.remotecommid", Name: "Remote Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fDreqQPN     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.dreq.remoteqpn", Name: "Remote QPN/EECN", Type: dissect.TUint24, Base: dissect.BaseHex, Proto: "ibcm", Desc: "rdx name (Wireshark has none)"})
	fDreqPriv    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.dreq.private", Name: "PrivateData", Type: dissect.TBytes, Proto: "ibcm"})
	fDrepLComm   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.drep.localcommid", Name: "Local Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm", Desc: "rdx name (Wireshark has none)"})
	fDrepRComm   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.drep.remotecommid", Name: "Remote Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm", Desc: "rdx name (Wireshark has none)"})
	fDrepPriv    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.drep.private", Name: "PrivateData", Type: dissect.TBytes, Proto: "ibcm", Desc: "rdx name (Wireshark has none)"})
	fMRALComm    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.mra.localcommid", Name: "Local Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fMRARComm    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.mra.remotecommid", Name: "Remote Communication ID", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqFrame    = dissect.Register(&dissect.Field{Abbrev: "ibcm.req_frame", Name: "ConnectRequest in frame", Type: dissect.TFrameNum, Desc: "the REQ this message answers (by communication ID)"})
	fConsumer    = dissect.Register(&dissect.Field{Abbrev: "ibcm.consumer", Name: "RDMA CM consumer", Type: dissect.TString, Desc: "protocol whose private data follows, by the REQ's RDMA CM port"})
	fReqLEECN    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.localeecn", Name: "Local EECN", Type: dissect.TUint24, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqREECN    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.remoteeecn", Name: "Remote EECN", Type: dissect.TUint24, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqRRespTO  = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.remoteresptout", Name: "Remote CM Response Timeout", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqTST      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.transpsvctype", Name: "Transport Service Type", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqE2E      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.e2eflowctrl", Name: "End-to-End Flow Control", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqLRespTO  = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.localresptout", Name: "Local CM Response Timeout", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqRetry    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.retrcount", Name: "Retry Count", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqMTU      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.pppmtu", Name: "Path Packet Payload MTU", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqRDC      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.rdcexist", Name: "RDC Exists", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqRNR      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.rnrretrcount", Name: "RNR Retry Count", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqMaxCM    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.maxcmretr", Name: "Max CM Retries", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqSRQ      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.srq", Name: "SRQ", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqExtTr    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.ext_transport", Name: "Extended Transport", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqFlow     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_flowlabel", Name: "Primary Flow Label", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqRes0     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_reserved0", Name: "Reserved", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqRate     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_pktrate", Name: "Primary Packet Rate", Type: dissect.TUint32, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqTClass   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_tfcclass", Name: "Primary Traffic Class", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqHop      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_hoplim", Name: "Primary Hop Limit", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqSL       = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_sl", Name: "Primary SL", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqSubnet   = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_subnetlocal", Name: "Primary Subnet Local", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqRes1     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_reserved1", Name: "Reserved", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqAckTO    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_localacktout", Name: "Primary Local ACK Timeout", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fReqRes2     = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.req.prim_reserved2", Name: "Reserved", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepAckDelay = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.tgtackdelay", Name: "Target ACK Delay", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepFailover = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.failoveracc", Name: "Failover Accepted", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepE2E      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.e2eflowctrl", Name: "End-To-End Flow Control", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepRNR      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.rnrretrcount", Name: "RNR Retry Count", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepSRQ      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.srq", Name: "SRQ", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	fRepRes      = dissect.Register(&dissect.Field{Abbrev: "infiniband.cm.rep.reserved", Name: "Reserved", Type: dissect.TUint8, Base: dissect.BaseHex, Proto: "ibcm"})
	checkMAD     = dissect.RegisterCheck("ibcm.mad", "ibcm", "CM MAD sane: 256 octets, base version 1, class version 2, Send() method, known attribute")
	checkIPCM    = dissect.RegisterCheck("ibcm.ip_cm", "ibcm", "RDMA CM REQ header (cma_hdr) sane: version 0, IP version 4 or 6, addresses of that version")
)
