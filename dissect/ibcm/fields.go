package ibcm

import . "github.com/rdx-project/rdx/dissect"

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
	PCM = RegisterProto("ibcm", "InfiniBand Communication Management",
		"CM MADs on QP1 (REQ/REP/RTU/REJ/DREQ/DREP/MRA) and RDMA CM private data; fields keep Wireshark's infiniband.mad.* / infiniband.cm.* names")

	fMAD         = Register(&Field{Abbrev: "infiniband.mad", Name: "MAD (Management Datagram) Common Header", Type: TBytes, Proto: "ibcm"})
	fBaseVer     = Register(&Field{Abbrev: "infiniband.mad.baseversion", Name: "Base Version", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fClass       = Register(&Field{Abbrev: "infiniband.mad.mgmtclass", Name: "Management Class", Type: TUint8, Base: BaseHex, Names: classNames, Proto: "ibcm"})
	fClassVer    = Register(&Field{Abbrev: "infiniband.mad.classversion", Name: "Class Version", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fMethod      = Register(&Field{Abbrev: "infiniband.mad.method", Name: "Method", Type: TUint8, Base: BaseHex, Names: methodNames, Proto: "ibcm"})
	fStatus      = Register(&Field{Abbrev: "infiniband.mad.status", Name: "Status", Type: TUint16, Base: BaseHex, Proto: "ibcm"})
	fClassSpec   = Register(&Field{Abbrev: "infiniband.mad.classspecific", Name: "Class Specific", Type: TUint16, Base: BaseHex, Proto: "ibcm"})
	fTID         = Register(&Field{Abbrev: "infiniband.mad.transactionid", Name: "Transaction ID", Type: TUint64, Base: BaseHex, Proto: "ibcm"})
	fAttrID      = Register(&Field{Abbrev: "infiniband.mad.attributeid", Name: "Attribute ID", Type: TUint16, Base: BaseHex, Names: attrNames, Proto: "ibcm"})
	fAttrMod     = Register(&Field{Abbrev: "infiniband.mad.attributemodifier", Name: "Attribute Modifier", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fMADData     = Register(&Field{Abbrev: "infiniband.mad.data", Name: "MAD Data Payload", Type: TBytes, Proto: "ibcm"})
	fReqComm     = Register(&Field{Abbrev: "infiniband.cm.req", Name: "Local Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm", Desc: "REQ: Wireshark names the REQ's local communication ID after the message"})
	fSID         = Register(&Field{Abbrev: "infiniband.cm.req.serviceid", Name: "ServiceID", Type: TUint64, Base: BaseHex, Proto: "ibcm"})
	fSIDPrefix   = Register(&Field{Abbrev: "infiniband.cm.req.serviceid.prefix", Name: "Prefix", Type: TBytes, Proto: "ibcm"})
	fSIDProto    = Register(&Field{Abbrev: "infiniband.cm.req.serviceid.protocol", Name: "Protocol", Type: TUint8, Base: BaseHex, Names: psNames, Proto: "ibcm"})
	fSIDPort     = Register(&Field{Abbrev: "infiniband.cm.req.serviceid.dport", Name: "Destination Port", Type: TUint16, Base: BaseHex, Proto: "ibcm"})
	fReqGUID     = Register(&Field{Abbrev: "infiniband.cm.req.localcaguid", Name: "Local CA GUID", Type: TUint64, Base: BaseHex, Proto: "ibcm"})
	fReqQKey     = Register(&Field{Abbrev: "infiniband.cm.req.localqkey", Name: "Local Q_Key", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fReqQPN      = Register(&Field{Abbrev: "infiniband.cm.req.localqpn", Name: "Local QPN", Type: TUint24, Base: BaseHex, Proto: "ibcm"})
	fReqResp     = Register(&Field{Abbrev: "infiniband.cm.req.responderres", Name: "Responder Resources", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqInit     = Register(&Field{Abbrev: "infiniband.cm.req.initdepth", Name: "Initiator Depth", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqPSN      = Register(&Field{Abbrev: "infiniband.cm.req.startpsn", Name: "Starting PSN", Type: TUint24, Base: BaseHex, Proto: "ibcm"})
	fReqPKey     = Register(&Field{Abbrev: "infiniband.cm.req.pkey", Name: "Partition Key", Type: TUint16, Base: BaseHex, Proto: "ibcm"})
	fReqLLID     = Register(&Field{Abbrev: "infiniband.cm.req.prim_locallid", Name: "Primary Local Port LID", Type: TUint16, Proto: "ibcm"})
	fReqRLID     = Register(&Field{Abbrev: "infiniband.cm.req.prim_remotelid", Name: "Primary Remote Port LID", Type: TUint16, Proto: "ibcm"})
	fReqLGID     = Register(&Field{Abbrev: "infiniband.cm.req.prim_localgid", Name: "Primary Local Port GID", Type: TIPv6, Proto: "ibcm"})
	fReqRGID     = Register(&Field{Abbrev: "infiniband.cm.req.prim_remotegid", Name: "Primary Remote Port GID", Type: TIPv6, Proto: "ibcm"})
	fReqLGID4    = Register(&Field{Abbrev: "infiniband.cm.req.prim_localgid_ipv4", Name: "Primary Local Port GID", Type: TIPv4, Proto: "ibcm", Desc: "an IPv4-mapped GID (RoCE)"})
	fReqRGID4    = Register(&Field{Abbrev: "infiniband.cm.req.prim_remotegid_ipv4", Name: "Primary Remote Port GID", Type: TIPv4, Proto: "ibcm", Desc: "an IPv4-mapped GID (RoCE)"})
	fIPCM        = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm", Name: "IP CM Request Msg", Type: TBytes, Proto: "ibcm", Desc: "RDMA CM header (struct cma_hdr) + consumer private data"})
	fIPCMMaj     = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.majv", Name: "IP CM Major Version", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fIPCMMin     = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.minv", Name: "IP CM Minor Version", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fIPCMIPV     = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.ipv", Name: "IP CM IP Version", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fIPCMRes     = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.reserved", Name: "IP CM Reserved", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fIPCMSport   = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.sport", Name: "IP CM Source Port", Type: TUint16, Base: BaseHex, Proto: "ibcm"})
	fIPCMSIP4    = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.sip4", Name: "IP CM Source IP", Type: TIPv4, Proto: "ibcm"})
	fIPCMDIP4    = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.dip4", Name: "IP CM Destination IP", Type: TIPv4, Proto: "ibcm"})
	fIPCMSIP6    = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.sip6", Name: "IP CM Source IP", Type: TIPv6, Proto: "ibcm"})
	fIPCMDIP6    = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.dip6", Name: "IP CM Destination IP", Type: TIPv6, Proto: "ibcm"})
	fIPCMPriv    = Register(&Field{Abbrev: "infiniband.cm.req.ip_cm.private", Name: "IP CM Consumer PrivateData", Type: TBytes, Proto: "ibcm"})
	fRepComm     = Register(&Field{Abbrev: "infiniband.cm.rep", Name: "Local Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fRepRComm    = Register(&Field{Abbrev: "infiniband.cm.rep.remotecommid", Name: "Remote Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fRepQKey     = Register(&Field{Abbrev: "infiniband.cm.rep.localqkey", Name: "Local Q_Key", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fRepQPN      = Register(&Field{Abbrev: "infiniband.cm.rep.localqpn", Name: "Local QPN", Type: TUint24, Base: BaseHex, Proto: "ibcm"})
	fRepEECN     = Register(&Field{Abbrev: "infiniband.cm.rep.localeecn", Name: "Local EE Context Number", Type: TUint24, Base: BaseHex, Proto: "ibcm"})
	fRepPSN      = Register(&Field{Abbrev: "infiniband.cm.rep.startpsn", Name: "Starting PSN", Type: TUint24, Base: BaseHex, Proto: "ibcm"})
	fRepResp     = Register(&Field{Abbrev: "infiniband.cm.rep.respres", Name: "Responder Resources", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fRepInit     = Register(&Field{Abbrev: "infiniband.cm.rep.initdepth", Name: "Initiator Depth", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fRepGUID     = Register(&Field{Abbrev: "infiniband.cm.rep.localcaguid", Name: "Local CA GUID", Type: TUint64, Base: BaseHex, Proto: "ibcm"})
	fRepPriv     = Register(&Field{Abbrev: "infiniband.cm.rep.private", Name: "PrivateData", Type: TBytes, Proto: "ibcm"})
	fRTULComm    = Register(&Field{Abbrev: "infiniband.cm.rtu.localcommid", Name: "Local Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fRTURComm    = Register(&Field{Abbrev: "infiniband.cm.rtu.remotecommid", Name: "Remote Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fRTUPriv     = Register(&Field{Abbrev: "infiniband.cm.rtu.private", Name: "PrivateData", Type: TBytes, Proto: "ibcm"})
	fRejLComm    = Register(&Field{Abbrev: "infiniband.cm.rej.localcommid", Name: "Local Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fRejRComm    = Register(&Field{Abbrev: "infiniband.cm.rej.remotecommid", Name: "Remote Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fRejReason   = Register(&Field{Abbrev: "infiniband.cm.rej.reason", Name: "Reason", Type: TUint16, Names: rejReasons, Proto: "ibcm"})
	fRejPriv     = Register(&Field{Abbrev: "infiniband.cm.rej.private", Name: "PrivateData", Type: TBytes, Proto: "ibcm"})
	fDreqLComm   = Register(&Field{Abbrev: "infiniband.cm.dreq.localcommid", Name: "Local Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fDreqRComm   = Register(&Field{Abbrev: "infiniband.cm.dreq.remotecommid", Name: "Remote Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fDreqQPN     = Register(&Field{Abbrev: "infiniband.cm.dreq.remoteqpn", Name: "Remote QPN/EECN", Type: TUint24, Base: BaseHex, Proto: "ibcm", Desc: "rdx name (Wireshark has none)"})
	fDreqPriv    = Register(&Field{Abbrev: "infiniband.cm.dreq.private", Name: "PrivateData", Type: TBytes, Proto: "ibcm"})
	fDrepLComm   = Register(&Field{Abbrev: "infiniband.cm.drep.localcommid", Name: "Local Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm", Desc: "rdx name (Wireshark has none)"})
	fDrepRComm   = Register(&Field{Abbrev: "infiniband.cm.drep.remotecommid", Name: "Remote Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm", Desc: "rdx name (Wireshark has none)"})
	fDrepPriv    = Register(&Field{Abbrev: "infiniband.cm.drep.private", Name: "PrivateData", Type: TBytes, Proto: "ibcm", Desc: "rdx name (Wireshark has none)"})
	fMRALComm    = Register(&Field{Abbrev: "infiniband.cm.mra.localcommid", Name: "Local Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fMRARComm    = Register(&Field{Abbrev: "infiniband.cm.mra.remotecommid", Name: "Remote Communication ID", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fReqFrame    = Register(&Field{Abbrev: "ibcm.req_frame", Name: "ConnectRequest in frame", Type: TFrameNum, Desc: "the REQ this message answers (by communication ID)"})
	fConsumer    = Register(&Field{Abbrev: "ibcm.consumer", Name: "RDMA CM consumer", Type: TString, Desc: "protocol whose private data follows, by the REQ's RDMA CM port"})
	fReqLEECN    = Register(&Field{Abbrev: "infiniband.cm.req.localeecn", Name: "Local EECN", Type: TUint24, Base: BaseHex, Proto: "ibcm"})
	fReqREECN    = Register(&Field{Abbrev: "infiniband.cm.req.remoteeecn", Name: "Remote EECN", Type: TUint24, Base: BaseHex, Proto: "ibcm"})
	fReqRRespTO  = Register(&Field{Abbrev: "infiniband.cm.req.remoteresptout", Name: "Remote CM Response Timeout", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqTST      = Register(&Field{Abbrev: "infiniband.cm.req.transpsvctype", Name: "Transport Service Type", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqE2E      = Register(&Field{Abbrev: "infiniband.cm.req.e2eflowctrl", Name: "End-to-End Flow Control", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqLRespTO  = Register(&Field{Abbrev: "infiniband.cm.req.localresptout", Name: "Local CM Response Timeout", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqRetry    = Register(&Field{Abbrev: "infiniband.cm.req.retrcount", Name: "Retry Count", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqMTU      = Register(&Field{Abbrev: "infiniband.cm.req.pppmtu", Name: "Path Packet Payload MTU", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqRDC      = Register(&Field{Abbrev: "infiniband.cm.req.rdcexist", Name: "RDC Exists", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqRNR      = Register(&Field{Abbrev: "infiniband.cm.req.rnrretrcount", Name: "RNR Retry Count", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqMaxCM    = Register(&Field{Abbrev: "infiniband.cm.req.maxcmretr", Name: "Max CM Retries", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqSRQ      = Register(&Field{Abbrev: "infiniband.cm.req.srq", Name: "SRQ", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqExtTr    = Register(&Field{Abbrev: "infiniband.cm.req.ext_transport", Name: "Extended Transport", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqFlow     = Register(&Field{Abbrev: "infiniband.cm.req.prim_flowlabel", Name: "Primary Flow Label", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fReqRes0     = Register(&Field{Abbrev: "infiniband.cm.req.prim_reserved0", Name: "Reserved", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fReqRate     = Register(&Field{Abbrev: "infiniband.cm.req.prim_pktrate", Name: "Primary Packet Rate", Type: TUint32, Base: BaseHex, Proto: "ibcm"})
	fReqTClass   = Register(&Field{Abbrev: "infiniband.cm.req.prim_tfcclass", Name: "Primary Traffic Class", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqHop      = Register(&Field{Abbrev: "infiniband.cm.req.prim_hoplim", Name: "Primary Hop Limit", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqSL       = Register(&Field{Abbrev: "infiniband.cm.req.prim_sl", Name: "Primary SL", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqSubnet   = Register(&Field{Abbrev: "infiniband.cm.req.prim_subnetlocal", Name: "Primary Subnet Local", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqRes1     = Register(&Field{Abbrev: "infiniband.cm.req.prim_reserved1", Name: "Reserved", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqAckTO    = Register(&Field{Abbrev: "infiniband.cm.req.prim_localacktout", Name: "Primary Local ACK Timeout", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fReqRes2     = Register(&Field{Abbrev: "infiniband.cm.req.prim_reserved2", Name: "Reserved", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fRepAckDelay = Register(&Field{Abbrev: "infiniband.cm.rep.tgtackdelay", Name: "Target ACK Delay", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fRepFailover = Register(&Field{Abbrev: "infiniband.cm.rep.failoveracc", Name: "Failover Accepted", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fRepE2E      = Register(&Field{Abbrev: "infiniband.cm.rep.e2eflowctrl", Name: "End-To-End Flow Control", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fRepRNR      = Register(&Field{Abbrev: "infiniband.cm.rep.rnrretrcount", Name: "RNR Retry Count", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fRepSRQ      = Register(&Field{Abbrev: "infiniband.cm.rep.srq", Name: "SRQ", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	fRepRes      = Register(&Field{Abbrev: "infiniband.cm.rep.reserved", Name: "Reserved", Type: TUint8, Base: BaseHex, Proto: "ibcm"})
	checkMAD     = RegisterCheck("ibcm.mad", "ibcm", "CM MAD sane: 256 octets, base version 1, class version 2, Send() method, known attribute")
	checkIPCM    = RegisterCheck("ibcm.ip_cm", "ibcm", "RDMA CM REQ header (cma_hdr) sane: version 0, IP version 4 or 6, addresses of that version")
)
