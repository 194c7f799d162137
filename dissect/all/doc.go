// Package all links every protocol dissector into a binary: one file per
// protocol, each a blank import, so adding a protocol touches no shared file.
package all
