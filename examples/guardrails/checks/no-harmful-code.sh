#!/bin/sh
# A guardrail validator: the answer arrives on stdin; exit 0 passes it, anything else rejects
# it with what was written to stderr as the errors.
answer=$(cat)
status=0
for pattern in 'rm -rf /' 'mkfs' 'dd if=/dev/zero' ':(){ :|:& };:' 'curl [^|]*| *sh'; do
  if printf '%s' "$answer" | grep -Eq -- "$pattern"; then
    echo "suggests a destructive command (matches \`$pattern\`)" >&2
    status=1
  fi
done
exit $status
