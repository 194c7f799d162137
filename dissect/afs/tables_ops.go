package afs

// Opcode names as the OpenAFS RPC interface files spell them (afsint.xg,
// ptint.xg, vldbint.xg, kauth.rg, volint.xg, bosint.xg, ubik_int.xg, ...), as
// collected in shared/specs/rx.md §7. Wireshark spells the same opcodes in
// lower case with dashes ("fetch-status"); the numbers agree.

var fsOpNames = map[uint32]string{
	130: "FetchData", 131: "FetchACL", 132: "FetchStatus", 133: "StoreData", 134: "StoreACL",
	135: "StoreStatus", 136: "RemoveFile", 137: "CreateFile", 138: "Rename", 139: "Symlink",
	140: "Link", 141: "MakeDir", 142: "RemoveDir", 143: "OldSetLock", 144: "OldExtendLock",
	145: "OldReleaseLock", 146: "GetStatistics", 147: "GiveUpCallBacks", 148: "GetVolumeInfo",
	149: "GetVolumeStatus", 150: "SetVolumeStatus", 151: "GetRootVolume", 152: "CheckToken",
	153: "GetTime", 154: "NGetVolumeInfo", 155: "BulkStatus", 156: "SetLock", 157: "ExtendLock",
	158: "ReleaseLock", 159: "XStatsVersion", 160: "GetXStats", 161: "DFSLookup", 162: "FlushCPS",
	163: "DFSSymlink", 220: "Residency",
	65536: "InlineBulkStatus", 65537: "FetchData64", 65538: "StoreData64",
	65539: "GiveUpAllCallBacks", 65540: "GetCapabilities",
}

var cbOpNames = map[uint32]string{
	204: "CallBack", 205: "InitCallBackState", 206: "Probe", 207: "GetLock", 208: "GetCE",
	209: "XStatsVersion", 210: "GetXStats", 211: "InitCallBackState2", 212: "WhoAreYou",
	213: "InitCallBackState3", 214: "ProbeUuid", 215: "GetServerPrefs", 216: "GetCellServDB",
	217: "GetLocalCell", 218: "GetCacheConfig",
	65536: "GetCE64", 65537: "GetCellByNum", 65538: "TellMeAboutYourself",
}

// 500 is PR_INewEntry in ptint.xg; the spec (and Wireshark) call it NewUser.
var ptOpNames = map[uint32]string{
	500: "NewUser", 501: "WhereIsIt", 502: "DumpEntry", 503: "AddToGroup", 504: "NameToID",
	505: "IDToName", 506: "Delete", 507: "RemoveFromGroup", 508: "GetCPS", 509: "NewEntry",
	510: "ListMax", 511: "SetMax", 512: "ListEntry", 513: "ChangeEntry", 514: "ListElements",
	515: "IsAMemberOf", 516: "SetFieldsEntry", 517: "ListOwned", 518: "GetCPS2",
	519: "GetHostCPS", 520: "UpdateEntry", 521: "ListEntries",
}

var vlOpNames = map[uint32]string{
	501: "CreateEntry", 502: "DeleteEntry", 503: "GetEntryByID", 504: "GetEntryByName",
	505: "GetNewVolumeId", 506: "ReplaceEntry", 507: "UpdateEntry", 508: "SetLock",
	509: "ReleaseLock", 510: "ListEntry", 511: "ListAttributes", 512: "LinkedList",
	513: "GetStats", 514: "Probe", 515: "GetAddrs", 516: "ChangeAddr", 517: "CreateEntryN",
	518: "GetEntryByIDN", 519: "GetEntryByNameN", 520: "ReplaceEntryN", 521: "ListEntryN",
	522: "ListAttributesN", 523: "LinkedListN", 524: "UpdateEntryByName", 525: "CreateEntryU",
	526: "GetEntryByIDU", 527: "GetEntryByNameU", 528: "ReplaceEntryU", 529: "ListEntryU",
	530: "ListAttributesU", 531: "LinkedListU", 532: "RegisterAddrs", 533: "GetAddrsU",
	534: "ListAttributesN2",
}

var kaOpNames = map[uint32]string{
	1: "Authenticate_old", 2: "ChangePassword", 3: "GetTicket_old", 4: "SetPassword",
	5: "SetFields", 6: "CreateUser", 7: "DeleteUser", 8: "GetEntry", 9: "ListEntry",
	10: "GetStats", 11: "Debug", 12: "GetPassword", 13: "GetRandomKey", 14: "Unlock",
	15: "LockStatus", 21: "Authenticate", 22: "AuthenticateV2", 23: "GetTicket",
}

var volOpNames = map[uint32]string{
	100: "CreateVolume", 101: "DeleteVolume", 102: "Restore", 103: "Forward", 104: "EndTrans",
	105: "Clone", 106: "SetFlags", 107: "GetFlags", 108: "TransCreate", 109: "Dump",
	110: "GetNthVolume", 111: "SetForwarding", 112: "GetName", 113: "GetStatus",
	114: "SignalRestore", 115: "ListPartitions", 116: "ListVolumes", 117: "SetIdsTypes",
	118: "Monitor", 119: "PartitionInfo", 120: "ReClone", 121: "ListOneVolume",
	122: "NukeVolume", 123: "SetDate", 124: "XListVolumes", 125: "XListOneVolume",
	126: "SetInfo", 127: "XListPartitions", 128: "ForwardMultiple",
	65536: "ConvertROtoRW", 65537: "GetSize",
}

var bosOpNames = map[uint32]string{
	80: "CreateBnode", 81: "DeleteBnode", 82: "SetStatus", 83: "GetStatus",
	84: "EnumerateInstance", 85: "GetInstanceInfo", 86: "GetInstanceParm", 87: "AddSUser",
	88: "DeleteSUser", 89: "ListSUsers", 90: "ListKeys", 91: "AddKey", 92: "DeleteKey",
	93: "SetCellName", 94: "GetCellName", 95: "GetCellHost", 96: "AddCellHost",
	97: "DeleteCellHost", 98: "SetTStatus", 99: "ShutdownAll", 100: "RestartAll",
	101: "StartupAll", 102: "SetNoAuthFlag", 103: "ReBozo", 104: "Restart", 105: "Install",
	106: "UnInstall", 107: "GetDates", 108: "Exec", 109: "Prune", 110: "SetRestartTime",
	111: "GetRestartTime", 112: "GetLog", 113: "WaitAll", 114: "GetInstanceStrings",
	115: "GetRestricted", 116: "SetRestricted",
}

var upOpNames = map[uint32]string{1: "FetchFile", 2: "FetchInfo"}

var rmtsysOpNames = map[uint32]string{1: "SetPAG", 2: "Pioctl"}

var voteOpNames = map[uint32]string{
	10000: "Beacon", 10001: "DebugOld", 10002: "SDebugOld", 10003: "GetSyncSite",
	10004: "Debug", 10005: "SDebug", 10006: "XDebug", 10007: "XSDebug",
}

var diskOpNames = map[uint32]string{
	20000: "Begin", 20001: "Commit", 20002: "Lock", 20003: "Write", 20004: "GetVersion",
	20005: "GetFile", 20006: "SendFile", 20007: "Abort", 20008: "ReleaseLocks",
	20009: "Truncate", 20010: "Probe", 20011: "WriteV", 20012: "InterfaceAddr",
	20013: "SetVersion",
}

// The backup database (buserver, BUDB) and tape coordinator (butc) opcode
// names are not in the spec we checked; rdx shows their numbers only rather
// than guess.

// valueNames turns an opcode table into a Field.Names map.
func valueNames(ms ...map[uint32]string) map[uint64]string {
	out := map[uint64]string{}
	for _, m := range ms {
		for k, v := range m {
			out[uint64(k)] = v
		}
	}
	return out
}
