#!/usr/bin/env bash
# Installs the Debian 12 packages that building, running and testing AccelOpt Workbench need.
# Idempotent: when everything is present it changes nothing and touches no network.
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build pkg-config
  # Qt 6, QScintilla, libssh, keychain (DESIGN.md §13)
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libqscintilla2-qt6-dev libssh-dev
  libqt6sql6-sqlite qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools libxkbcommon-dev qtkeychain-qt6-dev
  libgl1-mesa-dev
  # headless GUI runs and screenshots; a font so offscreen rendering draws text
  xvfb xauth fonts-dejavu-core
  # the host side and its tests run on Debian's python3 with numpy and pytest
  python3 python3-numpy python3-pytest
  # PyTorch on the CPU, for user tasks whose reference is a KernelBench-style torch Model (the CI preset fails their
  # tests without it: ACCELOPT_REQUIRE_TORCH=1)
  python3-torch
  # an optimised BLAS for numpy (Debian's default reference BLAS makes full-size matmul checks take minutes)
  libopenblas0-pthread
  # the diff behind Compare (header-only)
  libdtl-dev
  # the runner's sandbox for untrusted kernels
  bubblewrap
  # SSH host tests start a real sshd on loopback
  openssh-server openssh-client
  # SLURM host tests start a real one-node SLURM (munge, slurmctld, slurmd) on loopback
  munge slurmctld slurmd slurm-client
  # the keychain tests start a private D-Bus session bus with a wallet that never answers
  dbus-daemon
  # the .deb and its test (label package): CPack's DEB generator runs dpkg-shlibdeps (dpkg-dev); the test
  # checks the package with lintian, appstreamcli, desktop-file-validate and man, and installs it into a
  # clean Debian root that mmdebstrap makes
  dpkg-dev mmdebstrap lintian appstream desktop-file-utils man-db
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (or install sudo) to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
