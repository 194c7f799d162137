#!/usr/bin/env bash
# jsonraw-truth CAPTURE...: tshark's -T json -x (the "_raw" members) of the first 40 frames of each CAPTURE (-2 -n,
# as rdx reads), gzipped, as internal/tsharktest/testdata/jsonraw/NAME.json.gz (NAME: the path under pcaps/, / as _);
# internal/tsharktest's TestJSONRawMatchTshark compares rdx read -T json -x with them. Needs tshark (4.0.17 made them).
set -euo pipefail
out=internal/tsharktest/testdata/jsonraw
mkdir -p "$out"
for cap in "$@"; do
  name=${cap#pcaps/}
  tshark -2 -n -r "$cap" -c 40 -T json -x 2>/dev/null | gzip -9n > "$out/${name//\//_}.json.gz"
done
