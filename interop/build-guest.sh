#!/bin/bash
# Build the two-guest interop lab (Debian 12 host, root). Derived from the kernel capture
# lab: same kernel (Debian bookworm .deb), same out-of-tree siw.ko, same debootstrap'd rootfs
# packed as one initramfs; plus a static rdx and our guest scripts and scenarios.
#   $WORK/vmlinuz       Debian bookworm kernel
#   $WORK/initrd.cpio   guest rootfs + modules + /usr/local/bin/rdx + /lab (scripts, scenarios)
# Re-running skips finished steps (delete $WORK to start over); after editing rdx, guest/ or
# scenarios/ a re-run takes seconds (rdx rebuild + cpio).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
WORK=${WORK:-${TMPDIR:-/tmp}/rdx-interop}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
KVER=${KVER:-6.1.0-56-amd64}          # bookworm(-security) kernel ABI; rds_tcp as Linux 6.1 has it
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$WORK"; cd "$WORK"
t0=$(date +%s)

echo "== host packages"
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v debootstrap >/dev/null || [ ! -d /usr/src/linux-headers-$KVER ]; then
  apt-get install -y --no-install-recommends qemu-system-x86 qemu-utils debootstrap cpio xz-utils \
      make gcc bc linux-headers-$KVER linux-source-6.1 >/dev/null
fi

echo "== kernel image + modules ($KVER)"
if [ ! -f kpkg/boot/vmlinuz-$KVER ]; then
  mkdir -p debs kpkg
  (cd debs && apt-get download linux-image-$KVER)
  dpkg-deb -x debs/linux-image-${KVER}_*.deb kpkg
fi
cp kpkg/boot/vmlinuz-$KVER vmlinuz

echo "== siw.ko (Debian's 6.1 config leaves CONFIG_RDMA_SIW unset: build it out of tree)"
if [ ! -f siw-build/src/siw.ko ]; then
  rm -rf siw-build; mkdir -p siw-build
  tar -C siw-build -xJf /usr/src/linux-source-6.1.tar.xz linux-source-6.1/drivers/infiniband/sw/siw
  mv siw-build/linux-source-6.1/drivers/infiniband/sw/siw siw-build/src
  # siw's compile-time MPA knobs (CRC, revision, peer-to-peer, GSO) as module parameters
  (cd siw-build/src && patch -p1 < "$HERE/siw-params.patch")
  make -C /usr/src/linux-headers-$KVER M="$WORK/siw-build/src" CONFIG_RDMA_SIW=m modules >siw-build/build.log 2>&1
  strip --strip-debug siw-build/src/siw.ko
fi

echo "== guest rootfs (debootstrap)"
PKGS=iproute2,tcpdump,python3,rdma-core,ibverbs-providers,ibverbs-utils,rdmacm-utils,perftest,kmod,busybox,procps,netbase,ethtool,strace
if [ ! -x rootfs/usr/bin/rping ]; then
  rm -rf rootfs
  debootstrap --variant=minbase --include=$PKGS bookworm rootfs "$MIRROR" >debootstrap.log 2>&1
  rm -rf rootfs/usr/share/doc/* rootfs/usr/share/man/* rootfs/usr/share/locale/* rootfs/var/cache/apt/archives/*.deb rootfs/var/lib/apt/lists/*
fi

echo "== modules into rootfs"
M=rootfs/lib/modules/$KVER
if [ ! -f "$M/updates/siw.ko" ] || ! cmp -s siw-build/src/siw.ko "$M/updates/siw.ko"; then
  rm -rf "$M"; mkdir -p "$M/updates"
  ( cd kpkg/lib/modules/$KVER && tar -cf - --exclude=kernel/drivers/gpu --exclude=kernel/drivers/media \
      --exclude=kernel/sound --exclude=kernel/drivers/net/wireless --exclude=kernel/drivers/net/ethernet \
      --exclude=kernel/drivers/usb --exclude=kernel/drivers/iio --exclude=kernel/drivers/staging \
      --exclude=kernel/drivers/hwmon --exclude=kernel/drivers/scsi --exclude=kernel/drivers/hid \
      --exclude=kernel/drivers/bluetooth --exclude=kernel/net/wireless --exclude=kernel/net/mac80211 . ) \
    | tar -C "$M" -xf -
  cp siw-build/src/siw.ko "$M/updates/siw.ko"
  chroot rootfs depmod -a $KVER
fi

echo "== rdx (static)"
(cd "$REPO" && CGO_ENABLED=0 go build -trimpath -o "$WORK/rootfs/usr/local/bin/rdx" ./cmd/rdx)

echo "== lab scripts and scenarios"
rm -rf rootfs/lab; mkdir -p rootfs/lab/scenarios
cp "$HERE"/guest/* rootfs/lab/
cp "$HERE"/scenarios/*.sh rootfs/lab/scenarios/
mv rootfs/lab/init rootfs/init
chmod +x rootfs/init rootfs/lab/*.sh rootfs/lab/*.py rootfs/lab/scenarios/*.sh

echo "== initramfs"
( cd rootfs && find . -xdev | cpio -o -H newc --quiet ) > initrd.cpio
ls -la vmlinuz initrd.cpio
echo "build took $(( $(date +%s) - t0 )) s"
