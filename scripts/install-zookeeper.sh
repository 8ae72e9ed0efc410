#!/usr/bin/env bash
# Installs what zkcurator's demo and tests need on Debian or Ubuntu, and only that.
#
#   install-zookeeper.sh          ZooKeeper and a Java runtime: enough for make demo
#   install-zookeeper.sh --test   also a JDK (javac builds the Curator helper), Apache
#                                 Curator with curator-x-discovery, and Python's Kazoo:
#                                 the clients make test checks our nodes against; and
#                                 MIT Kerberos's KDC, kadmin.local and kinit, with which
#                                 the SASL GSSAPI tests run a realm of their own
#
# Idempotent: installs nothing when everything is present. Outside Debian, install
# Java and ZooKeeper 3.8 yourself and point ZOOKEEPER_CLASSPATH at ZooKeeper's jars
# (colon-separated, as testing/zktest reads it); the script then only checks them.
set -euo pipefail

want_test=false
case "${1:-}" in
--test) want_test=true ;;
"") ;;
*) echo "install-zookeeper.sh: unknown argument '$1' (want nothing or --test)" >&2; exit 2 ;;
esac

jar=/usr/share/java
have_java() { command -v java >/dev/null 2>&1; }
have_zookeeper() {
	if [ -n "${ZOOKEEPER_CLASSPATH:-}" ]; then
		local f IFS=:
		for f in $ZOOKEEPER_CLASSPATH; do [ -e "$f" ] || return 1; done
		return 0
	fi
	[ -f "${ZOOKEEPER_JAR:-$jar/zookeeper.jar}" ]
}
have_javac() { command -v javac >/dev/null 2>&1; }
have_curator() { [ -f $jar/curator-recipes.jar ] && [ -f $jar/curator-framework.jar ]; }
have_discovery() { [ -f $jar/curator-x-discovery.jar ] || ls $jar/curator-x-discovery*.jar >/dev/null 2>&1; }
have_krb5() { # Debian puts the KDC's programs in /usr/sbin, not on every PATH
	local p
	for p in "$@"; do command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || return 1; done
}
have_kazoo() { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import kazoo' >/dev/null 2>&1; } # Debian's Python, where python3-kazoo lives

missing=()
have_zookeeper || missing+=(zookeeper)
have_java || missing+=(default-jre-headless)
if $want_test; then
	have_javac || missing+=(default-jdk-headless)
	have_curator || missing+=(libcurator-recipes-java)
	have_discovery || missing+=(libcurator-discovery-java)
	have_kazoo || missing+=(python3-kazoo)
	have_krb5 krb5kdc kdb5_util || missing+=(krb5-kdc)
	have_krb5 kadmin.local || missing+=(krb5-admin-server)
	have_krb5 kinit || missing+=(krb5-user)
fi

if [ ${#missing[@]} -gt 0 ]; then
	if [ -n "${ZOOKEEPER_CLASSPATH:-}" ] && ! have_zookeeper; then
		echo "install-zookeeper.sh: ZOOKEEPER_CLASSPATH names a file that does not exist: $ZOOKEEPER_CLASSPATH" >&2
		exit 1
	fi
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "install-zookeeper.sh: missing Debian packages: ${missing[*]}" >&2
		echo "run as root on Debian or Ubuntu, or install them yourself: sudo apt-get install -y ${missing[*]}" >&2
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

version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo 'version unknown'; }
echo "zookeeper: ${ZOOKEEPER_CLASSPATH:-${ZOOKEEPER_JAR:-$jar/zookeeper.jar}} ($(version zookeeper))"
echo "java: $(command -v java)"
if $want_test; then
	echo "javac: $(command -v javac)"
	echo "curator: $jar/curator-recipes.jar ($(version libcurator-recipes-java)), curator-x-discovery ($(version libcurator-discovery-java))"
	echo "kazoo: python3-kazoo ($(version python3-kazoo))"
	echo "kerberos: krb5-kdc ($(version krb5-kdc)), krb5-admin-server ($(version krb5-admin-server)), krb5-user ($(version krb5-user))"
fi
