package afs

// Opcode names as the OpenAFS RPC interface files spell them (afsint.xg,
// afscbint.xg, ptint.xg, vldbint.xg + vl_opcodes.h, kauth.rg, volint.xg,
// bosint.xg, ubik_int.xg, update.xg, rmtsys.xg, budb.rg, butc.xg; checked
// against openafs master 4083ffd08), as collected in shared/specs/rx.md §7.
// Wireshark spells the same opcodes in lower case with dashes
// ("fetch-status"); the numbers agree except for butc (below) and CB 65538,
// which Wireshark calls get-capabilities (afscbint.xg: TellMeAboutYourself).
// Where an .xg renamed a procedure (FS 134 OldStoreACL, 161 Lookup, 220
// FsCmd, PR 500 INewEntry) the older name, which Wireshark uses too, stays.

var fsOpNames = map[uint32]string{
	130: "FetchData", 131: "FetchACL", 132: "FetchStatus", 133: "StoreData", 134: "StoreACL",
	135: "StoreStatus", 136: "RemoveFile", 137: "CreateFile", 138: "Rename", 139: "Symlink",
	140: "Link", 141: "MakeDir", 142: "RemoveDir", 143: "OldSetLock", 144: "OldExtendLock",
	145: "OldReleaseLock", 146: "GetStatistics", 147: "GiveUpCallBacks", 148: "GetVolumeInfo",
	149: "GetVolumeStatus", 150: "SetVolumeStatus", 151: "GetRootVolume", 152: "CheckToken",
	153: "GetTime", 154: "NGetVolumeInfo", 155: "BulkStatus", 156: "SetLock", 157: "ExtendLock",
	158: "ReleaseLock", 159: "XStatsVersion", 160: "GetXStats", 161: "DFSLookup", 162: "FlushCPS",
	163: "DFSSymlink", 164: "StoreACL", 220: "Residency",
	65536: "InlineBulkStatus", 65537: "FetchData64", 65538: "StoreData64",
	65539: "GiveUpAllCallBacks", 65540: "GetCapabilities", 65541: "CallBackRxConnAddr",
	65542: "GetStatistics64",
	// Numbers afsint.xg holds for the OpenAFS+OSD (rxosd) fork's calls.
	65551: "ServerPath", 65552: "PerfTest", 65557: "GetOSDlocation", 65558: "InverseLookup",
	65559: "CheckOSDconns", 65560: "OsdPolicy", 65561: "SetOsdFileReady", 65562: "GetOsdMetadata",
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
	519: "GetHostCPS", 520: "UpdateEntry", 521: "ListEntries", 530: "ListSuperGroups",
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
	65536: "ConvertROtoRW", 65537: "GetSize", 65538: "DumpV2", 65539: "PartitionInfo64",
	// volint.xg's numbers for the OpenAFS+OSD (rxosd) fork's calls.
	65540: "OsdSupport", 65541: "Traverse", 65542: "WipeCand", 65543: "OldSalvage",
	65544: "ArchCandOld", 65545: "Salvage", 65546: "ListObjects", 65547: "SplitVolume",
	65548: "ArchCand",
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

var rmtsysOpNames = map[uint32]string{1: "SetPag", 2: "Pioctl"}

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

// budb.rg numbers no procedure: rxgen gives them 0, 1, 2... in the order
// of the file (Wireshark agrees).
var budbOpNames = map[uint32]string{
	0: "AddVolume", 1: "CreateDump", 2: "DeleteDump", 3: "DeleteTape", 4: "DeleteVDP",
	5: "FindClone", 6: "FindDump", 7: "FindLatestDump", 8: "MakeDumpAppended", 9: "FindLastTape",
	10: "FinishDump", 11: "FinishTape", 12: "GetDumps", 13: "GetTapes", 14: "GetVolumes",
	15: "UseTape", 16: "GetText", 17: "GetTextVersion", 18: "SaveText", 19: "FreeAllLocks",
	20: "FreeLock", 21: "GetInstanceId", 22: "GetLock", 23: "DbVerify", 24: "DumpDB",
	25: "RestoreDbHeader", 26: "T_GetVersion", 27: "T_DumpHashTable", 28: "T_DumpDatabase",
	29: "AddVolumes", 30: "ListDumps",
}

// butc.xg numbers its procedures 0-12. Wireshark names 100-118 instead:
// the TCPERFORMDUMP... constants that butc.xg keeps inside a comment, which
// no butc sends as an opcode.
var butcOpNames = map[uint32]string{
	0: "PerformDump", 1: "PerformRestore", 2: "LabelTape", 3: "ReadLabel", 4: "ScanDumps",
	5: "TCInfo", 6: "SaveDb", 7: "RestoreDb", 8: "EndStatus", 9: "GetStatus",
	10: "RequestAbort", 11: "ScanStatus", 12: "DeleteDump",
}

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
