#!/usr/bin/env bash
# Installs what zkcurator's tests, demo and interop suite need on Debian:
# ZooKeeper (package zookeeper, which brings Java), a JDK for the Curator
# interop helper (javac), Apache Curator (libcurator-recipes-java) and Python's
# Kazoo (python3-kazoo), the clients our nodes must interoperate with.
# Idempotent: installs nothing when everything is present.
set -euo pipefail

have_zookeeper() { [ -f "${ZOOKEEPER_JAR:-/usr/share/java/zookeeper.jar}" ] && command -v java >/dev/null 2>&1; }
have_javac() { command -v javac >/dev/null 2>&1; }
have_curator() { [ -f /usr/share/java/curator-recipes.jar ] && [ -f /usr/share/java/curator-framework.jar ]; }
have_kazoo() { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import kazoo' >/dev/null 2>&1; } # Debian's Python, where python3-kazoo lives

missing=()
have_zookeeper || missing+=(zookeeper)
have_javac || missing+=(default-jdk-headless)
have_curator || missing+=(libcurator-recipes-java)
have_kazoo || missing+=(python3-kazoo)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-zookeeper.sh: missing Debian packages: ${missing[*]}" >&2
    echo "run as root, or install them yourself: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The Debian package starts no server by default; make sure a packaged one
# is not holding port 2181 if some other set-up enabled it.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet zookeeper 2>/dev/null; then
  systemctl stop zookeeper || true
fi

echo "zookeeper: ${ZOOKEEPER_JAR:-/usr/share/java/zookeeper.jar} ($(dpkg-query -W -f='${Version}' zookeeper 2>/dev/null || echo 'version unknown'))"
echo "java: $(command -v java), javac: $(command -v javac)"
echo "curator: /usr/share/java/curator-recipes.jar ($(dpkg-query -W -f='${Version}' libcurator-recipes-java 2>/dev/null || echo 'version unknown'))"
echo "kazoo: python3-kazoo ($(dpkg-query -W -f='${Version}' python3-kazoo 2>/dev/null || echo 'version unknown'))"
