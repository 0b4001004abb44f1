#!/usr/bin/env bash
# The .deb and .rpm packages, built from build/release and used as an operator
# would on a Debian 12 machine (README.md here lists every step). Root only:
# it installs, upgrades, removes and purges the packages. Exits non-zero on
# the first failed check; everything it installed or started is undone.
#
#   tests/packaging/check_packages.sh [BUILD_DIR]     (default build/release)
#   MODELGW_EXPOSURE_MAX=1.6  the worst `systemd-analyze security` score accepted
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build/release}" && pwd)"
EXPOSURE_MAX="${MODELGW_EXPOSURE_MAX:-1.6}"
UNIT=/lib/systemd/system/modelgw.service
STARTED=$(date +%s)

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    exec sudo -n --preserve-env=MODELGW_EXPOSURE_MAX "$0" "$BUILD"
  fi
  echo "SKIP packaging checks: they install packages and need root (or passwordless sudo)"
  exit 0
fi

step() { echo "==> packaging: $*"; }
fail() { echo "FAIL packaging: $*" >&2; exit 1; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

for pkg in modelgw modelgw-sdk; do
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "installed\|config-files"; then
    fail "$pkg is already on this machine; purge it first (apt-get purge $pkg)"
  fi
done
if getent passwd modelgw >/dev/null || [ -e /var/lib/modelgw ] || [ -e /etc/modelgw ]; then
  fail "a modelgw user, /var/lib/modelgw or /etc/modelgw already exists; this test would delete it"
fi

# Tools, from Debian's archive, only when missing.
missing=()
for pkg in lintian rpm systemd curl cmake gcc; do installed "$pkg" || missing+=("$pkg"); done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

WORK="$(mktemp -d /tmp/modelgw-packaging.XXXXXX)"
chmod 0755 "$WORK"  # the modelgw user reads the test config in it
PIDS=()
cleanup() {
  local rc=$?
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  [ -d /var/lib/modelgw.packaging-test ] && mv /var/lib/modelgw.packaging-test /var/lib/modelgw
  # dpkg, not apt: a package installed from a file is in no apt source, so
  # apt cannot name it once it is only "config-files".
  dpkg --purge modelgw-sdk modelgw >/dev/null 2>&1 || true
  rm -rf "$WORK"
  echo "==> packaging: finished in $(($(date +%s) - STARTED)) s (exit $rc)"
}
trap cleanup EXIT

# wait_until SECONDS COMMAND...: poll COMMAND every 0.1 s, false after SECONDS.
wait_until() {
  local deadline=$(($(date +%s) + $1)); shift
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}
as_modelgw() { runuser -u modelgw -- env -i PATH=/usr/bin:/bin HOME=/var/lib/modelgw no_proxy='*' "$@"; }

# --- build -----------------------------------------------------------------------
step "cpack DEB and RPM from $BUILD"
# cpack installs core, plugins, sdk and packaging of the build tree (their
# `preinstall` builds what is stale there); the lock keeps it from racing a build.
(cd "$BUILD" && flock /tmp/mgw-build.lock cpack -G "DEB;RPM" -B "$WORK/pkg" >"$WORK/cpack.log" 2>&1) ||
  { tail -30 "$WORK/cpack.log"; fail "cpack failed"; }
cd "$WORK/pkg"
DEB=(modelgw_*_amd64.deb); SDK_DEB=(modelgw-sdk_*.deb)
RPM=(modelgw-[0-9]*.rpm); SDK_RPM=(modelgw-sdk-*.rpm)
for f in "${DEB[0]}" "${SDK_DEB[0]}" "${RPM[0]}" "${SDK_RPM[0]}"; do
  [ -f "$f" ] || fail "cpack made no $f (made: $(ls))"
done
echo "    ${DEB[0]} ${SDK_DEB[0]} ${RPM[0]} ${SDK_RPM[0]}"
for f in "${DEB[0]}" "${SDK_DEB[0]}"; do
  echo "    $(dpkg-deb -f "$f" Package): $(dpkg-deb -f "$f" Description | head -1)"
done

# --- lintian ---------------------------------------------------------------------
step "lintian"
lintian --no-cfg --fail-on error -L '>=warning' "${DEB[0]}" "${SDK_DEB[0]}" | tee "$WORK/lintian.log" ||
  fail "lintian reports errors"
echo "    lintian: $(grep -c '^E:' "$WORK/lintian.log" || true) errors, $(grep -c '^W:' "$WORK/lintian.log" || true) warnings"

# --- rpm ------------------------------------------------------------------------
step "rpm contents"
rpm -qlp "${RPM[0]}" >"$WORK/rpm.list" 2>/dev/null
for path in /usr/bin/modelgw /usr/lib/modelgw/plugins/mgw_provider_openai.so \
            /usr/lib/modelgw/plugins/mgw_storage_sqlite.so /etc/modelgw/modelgw.yaml \
            /usr/lib/systemd/system/modelgw.service /usr/share/doc/modelgw/copyright; do
  grep -qx "$path" "$WORK/rpm.list" || fail "${RPM[0]} lacks $path"
done
! grep -q "lintian\|changelog.Debian\|^/lib/" "$WORK/rpm.list" || fail "${RPM[0]} holds Debian-only files"
rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "${RPM[0]}" 2>/dev/null | grep -qx "cn /etc/modelgw/modelgw.yaml" ||
  fail "/etc/modelgw/modelgw.yaml is not %config(noreplace) in ${RPM[0]}"
rpm -qp --scripts "${RPM[0]}" 2>/dev/null | grep -q "useradd --system" || fail "${RPM[0]} has no %pre creating the user"
rpm -qlp "${SDK_RPM[0]}" >"$WORK/rpm-sdk.list" 2>/dev/null
for path in /usr/include/modelgw/plugin.h /usr/share/cmake/ModelgwSDK/ModelgwSDKConfig.cmake \
            /usr/share/pkgconfig/modelgw-sdk.pc /usr/bin/modelgw-plugin-conformance \
            /usr/share/modelgw-sdk/examples/echo_provider/CMakeLists.txt; do
  grep -qx "$path" "$WORK/rpm-sdk.list" || fail "${SDK_RPM[0]} lacks $path"
done
echo "    $(wc -l <"$WORK/rpm.list") + $(wc -l <"$WORK/rpm-sdk.list") paths as expected"

# --- install ---------------------------------------------------------------------
step "apt-get install ./${DEB[0]} ./${SDK_DEB[0]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./${DEB[0]}" "./${SDK_DEB[0]}" >"$WORK/apt.log" 2>&1 ||
  { cat "$WORK/apt.log"; fail "apt-get install failed"; }
getent passwd modelgw | grep -q ":/var/lib/modelgw:/usr/sbin/nologin$" || fail "no modelgw system user"
[ "$(stat -c '%U:%G %a' /var/lib/modelgw)" = "modelgw:modelgw 750" ] ||
  fail "/var/lib/modelgw is $(stat -c '%U:%G %a' /var/lib/modelgw), expected modelgw:modelgw 750"
grep -qx "/etc/modelgw/modelgw.yaml" /var/lib/dpkg/info/modelgw.conffiles || fail "modelgw.yaml is no conffile"
[ -L /etc/systemd/system/multi-user.target.wants/modelgw.service ] || fail "install did not enable modelgw.service"
/usr/bin/modelgw check-config /etc/modelgw/modelgw.yaml >"$WORK/check-config.log" 2>&1 ||
  { cat "$WORK/check-config.log"; fail "the packaged config fails check-config"; }

step "systemd-analyze"
systemd-analyze verify "$UNIT" || fail "systemd-analyze verify $UNIT"
systemd-analyze security --offline=true --no-pager "$UNIT" >"$WORK/security.log" 2>&1 || true
score=$(sed -n 's/.*Overall exposure level for modelgw.service: \([0-9.]*\).*/\1/p' "$WORK/security.log")
[ -n "$score" ] || { cat "$WORK/security.log"; fail "no exposure score from systemd-analyze security"; }
echo "    exposure $score (threshold $EXPOSURE_MAX)"
awk -v s="$score" -v m="$EXPOSURE_MAX" 'BEGIN { exit !(s <= m) }' ||
  { grep "✗" "$WORK/security.log" || true; fail "exposure $score is worse than $EXPOSURE_MAX"; }

# --- serve one request as the package's user -------------------------------------
step "serve a chat request as user modelgw"
"$BUILD/tests/fake_upstream/fake_upstream" --port 0 --api-key fake-upstream-key >"$WORK/upstream.out" 2>&1 &
PIDS+=($!)
wait_until 10 grep -q '^LISTENING ' "$WORK/upstream.out" || fail "fake_upstream did not start"
UPSTREAM_PORT=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$WORK/upstream.out")
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed "s|^server: .*|server:   { listen: \"127.0.0.1:$PORT\" }|" /etc/modelgw/modelgw.yaml >"$WORK/modelgw.yaml"
chmod 0644 "$WORK/modelgw.yaml"
GW_ENV=(OPENAI_BASE_URL="http://127.0.0.1:$UPSTREAM_PORT/v1" OPENAI_API_KEY=fake-upstream-key)

# Bad input first: the state folder is gone. One clear line, non-zero exit.
mv /var/lib/modelgw /var/lib/modelgw.packaging-test
set +e
(cd / && timeout 20 runuser -u modelgw -- env -i PATH=/usr/bin:/bin "${GW_ENV[@]}" \
   /usr/bin/modelgw serve --config "$WORK/modelgw.yaml") >"$WORK/missing.out" 2>&1
missing_rc=$?
set -e
mv /var/lib/modelgw.packaging-test /var/lib/modelgw
echo "    without /var/lib/modelgw: exit $missing_rc, last line: $(tail -1 "$WORK/missing.out")"
[ "$missing_rc" -ne 0 ] && [ "$missing_rc" -ne 124 ] || fail "serve without its state folder must exit non-zero at once"
grep -q "/var/lib/modelgw" "$WORK/missing.out" || fail "the error must name /var/lib/modelgw"

(cd /var/lib/modelgw && as_modelgw "${GW_ENV[@]}" modelgw tenants create acme --config "$WORK/modelgw.yaml") >/dev/null
KEY=$(cd /var/lib/modelgw && as_modelgw "${GW_ENV[@]}" modelgw keys create --tenant acme --config "$WORK/modelgw.yaml" 2>/dev/null | head -1)
[ -n "$KEY" ] || fail "modelgw keys create printed no key"
(cd /var/lib/modelgw && exec runuser -u modelgw -- env -i PATH=/usr/bin:/bin no_proxy='*' "${GW_ENV[@]}" \
   /usr/bin/modelgw serve --config "$WORK/modelgw.yaml") >"$WORK/gateway.log" 2>&1 &
GW_PID=$!
PIDS+=($GW_PID)
ready() { curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz"; }
wait_until 20 ready || { tail -20 "$WORK/gateway.log"; fail "the installed gateway did not listen on 127.0.0.1:$PORT"; }
code=$(curl -s -m 20 -o "$WORK/chat.json" -w '%{http_code}' "http://127.0.0.1:$PORT/v1/chat/completions" \
  -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d '{"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hello"}]}')
[ "$code" = 200 ] && grep -q '"choices"' "$WORK/chat.json" ||
  { cat "$WORK/chat.json"; tail -20 "$WORK/gateway.log"; fail "chat request answered $code"; }
[ "$(stat -c %U /var/lib/modelgw/modelgw.db)" = modelgw ] || fail "the store is not the modelgw user's"
# The web console is inside the installed binary: nothing beside it to install.
curl -sf -m 10 "http://127.0.0.1:$PORT/console/" | grep -q '<script src="app.js"' ||
  fail "the installed gateway does not serve its console at /console/"
kill -TERM "$GW_PID"
wait_until 15 bash -c "! kill -0 $GW_PID 2>/dev/null" || fail "the gateway did not stop on SIGTERM"
echo "    200 from /v1/chat/completions via the fake upstream, and the console at /console/"

# --- the SDK alone ---------------------------------------------------------------
step "SDK example against the installed modelgw-sdk"
cp -r /usr/share/modelgw-sdk/examples/echo_provider "$WORK/echo"
(cd "$WORK" && env -i PATH=/usr/bin:/bin HOME="$WORK" cmake -S echo -B echo/build >"$WORK/echo.log" 2>&1 &&
   env -i PATH=/usr/bin:/bin HOME="$WORK" cmake --build echo/build >>"$WORK/echo.log" 2>&1) ||
  { cat "$WORK/echo.log"; fail "the example does not build against the installed SDK"; }
grep -qx "ModelgwSDK_DIR:PATH=/usr/share/cmake/ModelgwSDK" "$WORK/echo/build/CMakeCache.txt" ||
  fail "the example found the SDK elsewhere: $(grep ModelgwSDK_DIR "$WORK/echo/build/CMakeCache.txt")"
[ -f "$WORK/echo/build/mgw_provider_echo.so" ] || fail "the example built no mgw_provider_echo.so"
! grep -q "[Ww]arning: " "$WORK/echo.log" || fail "the example builds with warnings"
echo "    mgw_provider_echo.so built against /usr/share/cmake/ModelgwSDK"

# --- upgrade: the operator's config edit survives --------------------------------
step "upgrade to a newer version whose packaged config changed"
echo "# operator edit $$" >>/etc/modelgw/modelgw.yaml
dpkg-deb -R "${DEB[0]}" "$WORK/next"
sed -i 's/^Version: \(.*\)-\([0-9]*\)$/Version: \1-\2+upgrade1/' "$WORK/next/DEBIAN/control"
echo "# a newer default" >>"$WORK/next/etc/modelgw/modelgw.yaml"
(cd "$WORK/next" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | xargs -0 md5sum >DEBIAN/md5sums)
dpkg-deb -b --root-owner-group "$WORK/next" "$WORK/modelgw_next.deb" >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Options::=--force-confold "$WORK/modelgw_next.deb" \
  >"$WORK/apt-upgrade.log" 2>&1 || { cat "$WORK/apt-upgrade.log"; fail "the upgrade failed"; }
dpkg-query -W -f='${Version}' modelgw | grep -q '+upgrade1$' || fail "the upgrade did not install"
grep -qx "# operator edit $$" /etc/modelgw/modelgw.yaml || fail "the upgrade lost the operator's edit"
[ -f /etc/modelgw/modelgw.yaml.dpkg-dist ] || fail "the new packaged config was not kept as .dpkg-dist"
[ -f /var/lib/modelgw/modelgw.db ] || fail "the upgrade lost the state"
(cd /var/lib/modelgw && as_modelgw modelgw keys list --config "$WORK/modelgw.yaml") | grep -q "acme" ||
  fail "the key made before the upgrade is gone"

# --- remove keeps state, purge deletes it ---------------------------------------
step "apt-get remove"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq modelgw modelgw-sdk >"$WORK/apt-remove.log" 2>&1 ||
  { cat "$WORK/apt-remove.log"; fail "apt-get remove failed"; }
[ ! -e /usr/bin/modelgw ] || fail "remove left /usr/bin/modelgw"
[ -f /var/lib/modelgw/modelgw.db ] || fail "remove deleted the state in /var/lib/modelgw"
getent passwd modelgw >/dev/null || fail "remove deleted the modelgw user"
grep -qx "# operator edit $$" /etc/modelgw/modelgw.yaml || fail "remove lost the operator's config"
[ "$(readlink /etc/systemd/system/modelgw.service)" = /dev/null ] || fail "remove did not mask modelgw.service"

step "reinstall over the kept state, remove again"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Options::=--force-confold "$WORK/modelgw_next.deb" \
  >"$WORK/apt-reinstall.log" 2>&1 || { cat "$WORK/apt-reinstall.log"; fail "reinstall after remove failed"; }
[ ! -e /etc/systemd/system/modelgw.service ] || fail "reinstall left modelgw.service masked"
[ -L /etc/systemd/system/multi-user.target.wants/modelgw.service ] || fail "reinstall did not enable modelgw.service"
(cd /var/lib/modelgw && as_modelgw modelgw keys list --config "$WORK/modelgw.yaml") | grep -q "acme" ||
  fail "the key made before remove is gone after reinstall"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq modelgw >"$WORK/apt-remove.log" 2>&1 ||
  { cat "$WORK/apt-remove.log"; fail "apt-get remove failed"; }

step "dpkg --purge"
# dpkg, not apt: removed packages installed from files are in no apt source.
dpkg --purge modelgw modelgw-sdk >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "dpkg --purge failed"; }
[ ! -e /var/lib/modelgw ] || fail "purge left /var/lib/modelgw"
[ ! -e /etc/modelgw ] || fail "purge left /etc/modelgw"
! getent passwd modelgw >/dev/null || fail "purge left the modelgw user"
! getent group modelgw >/dev/null || fail "purge left the modelgw group"

echo "==> packaging: all checks passed (exposure $score)"
