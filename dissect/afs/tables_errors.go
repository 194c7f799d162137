package afs

// AFS abort codes. Most come from com_err tables: a table named e.g. "PT" has
// base = (6-bit code of each letter, packed) << 8, so PT starts at 267264 and
// code base+i is the table's i-th entry (OpenAFS pterror.et, vl_errors.et,
// kaerrors.et, volerr.et, boserr.et, uerrors.et, rxkad_errs.et, uae.et).

type errTable struct {
	base  uint32
	names []string
}

var errTables = [...]errTable{
	{5376, []string{ // U: ubik
		"UNOQUORUM", "UNOTSYNC", "UNHOSTS", "UIOERROR", "UINTERNAL", "USYNC", "UNOENT",
		"UBADLOCK", "UBADLOG", "UBADHOST", "UBADTYPE", "UTWOENDS", "UDONE", "UNOSERVERS",
		"UEOF", "ULOGIO", "UBADFAM", "UBADCELL", "UBADSECGRP", "UBADGROUP", "UBADUUID",
		"UNOMEM", "UNOTMEMBER"}},
	{39424, []string{ // BZ: bosserver
		"BZNOTACTIVE", "BZNOENT", "BZBUSY", "BZEXISTS", "BZNOCREATE", "BZDOM", "BZACCESS",
		"BZSYNTAX", "BZIO", "BZNET", "BZBADTYPE"}},
	{180480, []string{ // KA: kaserver
		"KADATABASEINCONSISTENT", "KAEXIST", "KAIO", "KACREATEFAIL", "KANOENT", "KAEMPTY",
		"KABADNAME", "KABADINDEX", "KANOAUTH", "KAANSWERTOOLONG", "KABADREQUEST",
		"KAOLDINTERFACE", "KABADARGUMENT", "KABADCMD", "KANOKEYS", "KAREADPW", "KABADKEY",
		"KAUBIKINIT", "KAUBIKCALL", "KABADPROTOCOL", "KANOCELLS", "KANOCELL",
		"KATOOMANYUBIKS", "KATOOMANYKEYS", "KABADTICKET", "KAUNKNOWNKEY",
		"KAKEYCACHEINVALID", "KABADSERVER", "KABADUSER", "KABADCPW", "KABADCREATE",
		"KANOTICKET", "KAASSOCUSER", "KANOTSPECIAL", "KACLOCKSKEW", "KANORECURSE",
		"KARXFAIL", "KANULLPASSWORD", "KAINTERNALERROR", "KAPWEXPIRED", "KAREUSED",
		"KATOOSOON", "KALOCKED"}},
	{267264, []string{ // PT: ptserver
		"PREXIST", "PRIDEXIST", "PRNOIDS", "PRDBFAIL", "PRNOENT", "PRPERM", "PRNOTGROUP",
		"PRNOTUSER", "PRBADNAM", "PRBADARG", "PRNOMORE", "PRDBBAD", "PRGROUPEMPTY",
		"PRINCONSISTENT", "PRBADID", "PRTOOMANY", "PRNOMEM"}},
	{363520, []string{ // VL: vlserver
		"VL_IDEXIST", "VL_IO", "VL_NAMEEXIST", "VL_CREATEFAIL", "VL_NOENT", "VL_EMPTY",
		"VL_ENTDELETED", "VL_BADNAME", "VL_BADINDEX", "VL_BADVOLTYPE", "VL_BADSERVER",
		"VL_BADPARTITION", "VL_REPSFULL", "VL_NOREPSERVER", "VL_DUPREPSERVER",
		"VL_RWNOTFOUND", "VL_BADREFCOUNT", "VL_SIZEEXCEEDED", "VL_BADENTRY",
		"VL_BADVOLIDBUMP", "VL_IDALREADYHASHED", "VL_ENTRYLOCKED", "VL_BADVOLOPER",
		"VL_BADRELLOCKTYPE", "VL_RERELEASE", "VL_BADSERVERFLAG", "VL_PERM", "VL_NOMEM",
		"VL_BADVERSION", "VL_INDEXERANGE", "VL_MULTIPADDR", "VL_BADMASK"}},
	{19270400, []string{ // RXK: rxkad
		"RXKADINCONSISTENCY", "RXKADPACKETSHORT", "RXKADLEVELFAIL", "RXKADTICKETLEN",
		"RXKADOUTOFSEQUENCE", "RXKADNOAUTH", "RXKADBADKEY", "RXKADBADTICKET",
		"RXKADUNKNOWNKEY", "RXKADEXPIRED", "RXKADSEALEDINCON", "RXKADDATALEN",
		"RXKADILLEGALLEVEL"}},
	{49733376, []string{ // uae: errno values made portable (Linux numbering minus one)
		"UAEPERM", "UAENOENT", "UAESRCH", "UAEINTR", "UAEIO", "UAENXIO", "UAE2BIG",
		"UAENOEXEC", "UAEBADF", "UAECHILD", "UAEAGAIN", "UAENOMEM", "UAEACCES", "UAEFAULT",
		"UAENOTBLK", "UAEBUSY", "UAEEXIST", "UAEXDEV", "UAENODEV", "UAENOTDIR", "UAEISDIR",
		"UAEINVAL", "UAENFILE", "UAEMFILE", "UAENOTTY", "UAETXTBSY", "UAEFBIG", "UAENOSPC",
		"UAESPIPE", "UAEROFS", "UAEMLINK", "UAEPIPE", "UAEDOM", "UAERANGE", "UAEDEADLK",
		"UAENAMETOOLONG", "UAENOLCK", "UAENOSYS", "UAENOTEMPTY", "UAELOOP"}},
	{1492325120, []string{ // VOLS: volserver
		"VOLSERTRELE_ERROR", "VOLSERNO_OP", "VOLSERREAD_DUMPERROR", "VOLSERDUMPERROR",
		"VOLSERATTACH_ERROR", "VOLSERILLEGAL_PARTITION", "VOLSERDETACH_ERROR",
		"VOLSERBAD_ACCESS", "VOLSERVLDB_ERROR", "VOLSERBADNAME", "VOLSERVOLMOVED",
		"VOLSERBADOP", "VOLSERBADRELEASE", "VOLSERVOLBUSY", "VOLSERNO_MEMORY", "VOLSERNOVOL",
		"VOLSERMULTIRWVOL", "VOLSERFAILEDOP"}},
}

// Volume errors the fileserver and volserver return (OpenAFS volume.h); they
// are not a com_err table.
func volumeErrorName(code uint32) string {
	switch code {
	case 101:
		return "VSALVAGE"
	case 102:
		return "VNOVNODE"
	case 103:
		return "VNOVOL"
	case 104:
		return "VVOLEXISTS"
	case 105:
		return "VNOSERVICE"
	case 106:
		return "VOFFLINE"
	case 107:
		return "VONLINE"
	case 108:
		return "VDISKFULL"
	case 109:
		return "VOVERQUOTA"
	case 110:
		return "VBUSY"
	case 111:
		return "VMOVED"
	case 112:
		return "VIO"
	case 113:
		return "VSALVAGING"
	case 114:
		return "VRESTARTING"
	case 120:
		return "VRESTRICTED"
	}
	return ""
}

// errnoName names the errno values a fileserver or cache manager sends as
// raw abort codes; only those with the same number on Linux, the BSDs and
// Solaris (ENOTEMPTY, ENAMETOOLONG... differ, so they are left out). Other
// services use small codes for their own ends (bos ListSUsers past the end
// aborts with 1), so these names are used for FS and CB calls only.
func errnoName(code uint32) string {
	switch code {
	case 1:
		return "EPERM"
	case 2:
		return "ENOENT"
	case 5:
		return "EIO"
	case 12:
		return "ENOMEM"
	case 13:
		return "EACCES"
	case 17:
		return "EEXIST"
	case 18:
		return "EXDEV"
	case 20:
		return "ENOTDIR"
	case 21:
		return "EISDIR"
	case 22:
		return "EINVAL"
	case 27:
		return "EFBIG"
	case 28:
		return "ENOSPC"
	case 30:
		return "EROFS"
	case 31:
		return "EMLINK"
	}
	return ""
}

// tableErrorName names a code from the com_err tables or the volume errors;
// "" when it is none of them.
func tableErrorName(code uint32) string {
	for i := range errTables {
		t := &errTables[i]
		if code >= t.base && code-t.base < uint32(len(t.names)) {
			return t.names[code-t.base]
		}
	}
	return volumeErrorName(code)
}
