#!/bin/sh
# unprivileged.sh COMMAND ARGS...: runs COMMAND without the capabilities that let root read
# past file permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), dropped from the bounding set so
# the exec'd program never regains them; as itself when not root. Staying root (rather than
# becoming nobody) keeps the build reachable wherever it is, e.g. under a 0700 mktemp folder.
if [ "$(id -u)" = 0 ]; then
  exec python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2
for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
    if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
        sys.exit("unprivileged.sh: cannot drop capability %d: %s" % (capability, os.strerror(ctypes.get_errno())))
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
fi
exec "$@"
