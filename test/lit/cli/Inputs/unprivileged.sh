#!/bin/sh
# unprivileged.sh COMMAND ARGS...: runs COMMAND as user and group nobody (65534) when run as
# root, where file permissions would not stop a read; as itself otherwise. (python3 is already
# a dependency of the suite; setpriv's package differs between Debian releases.)
if [ "$(id -u)" = 0 ]; then
  exec python3 -c 'import os, sys
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
fi
exec "$@"
