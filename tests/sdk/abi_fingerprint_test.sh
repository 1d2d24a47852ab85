#!/usr/bin/env bash
# The ABI fingerprint (Note [ABI fingerprint] in bazel/abi_fingerprint.py)
# changes when what a plugin compiles against changes, and only then.
# Usage: abi_fingerprint_test.sh SCRIPT GENERATED_HEADER HEADER...
set -euo pipefail
script=$1 generated=$2
shift 2
headers=("$@")

fail() { echo "FAIL: $*" >&2; exit 1; }
fp() { # fp DIR: the fingerprint of the headers as copied under DIR
  (cd "$1" && python3 "$OLDPWD/$script" out.h "${headers[@]}" && sed -n 's/.*"\(.*\)".*/\1/p' out.h)
}
copy() { # copy DIR: a fresh copy of the headers under DIR
  rm -rf "$1" && mkdir -p "$1"
  for h in "${headers[@]}"; do mkdir -p "$1/$(dirname "$h")" && cp "$h" "$1/$h"; done
  chmod -R u+w "$1"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The inputs are the hand-written headers of every layer, none generated.
for need in c10/core/TensorImpl.h c10/core/DispatchKey.h registration/Dispatcher.h \
            aten/Tensor.h autograd/function.h autograd/custom_function.h; do
  # A here-string, not a pipe: grep -q exits at the first match, and under
  # pipefail the writer's SIGPIPE would fail the check at random.
  grep -qx "$need" <<<"$(printf '%s\n' "${headers[@]}")" || fail "$need is not hashed"
done
printf '%s\n' "${headers[@]}" | grep -E '(^|/)(Operators|Functions)\.h$|TensorMethods|generated/' &&
  fail "a generated op list is hashed: adding an op would break every plugin"

copy "$tmp/base"
base=$(fp "$tmp/base")
grep -qF "\"$base\"" "$generated" || fail "the build's fingerprint ($(cat "$generated")) is not $base"

# Comments and layout are not ABI.
copy "$tmp/c"
sed -i 's#^// #//  reworded: #' "$tmp/c/c10/core/TensorImpl.h"
echo '/* a new block comment */' >> "$tmp/c/aten/Tensor.h"
sed -i 's/^\(  *\)/\1  /' "$tmp/c/registration/Dispatcher.h"
[[ $(fp "$tmp/c") == "$base" ]] || fail "a comment or indentation change moved the fingerprint"

# A string literal that looks like a comment is code.
copy "$tmp/s"
echo 'inline const char* abi_probe() { return "// not a comment"; }' >> "$tmp/s/c10/util/Exception.h"
[[ $(fp "$tmp/s") != "$base" ]] || fail "new inline code did not move the fingerprint"

# A class layout change in c10, in the dispatch keys, or in autograd does.
copy "$tmp/l"
sed -i 's/\bint64_t storage_offset_\b/int32_t storage_offset_/' "$tmp/l/c10/core/TensorImpl.h"
[[ $(fp "$tmp/l") != "$base" ]] || fail "a TensorImpl member's type changed and the fingerprint did not"

copy "$tmp/a"
printf 'namespace torch { namespace autograd { struct AbiProbe { int x; }; } }\n' >> "$tmp/a/autograd/function.h"
[[ $(fp "$tmp/a") != "$base" ]] || fail "an autograd header change did not move the fingerprint"

# The order Bazel passes the files in does not matter.
rev=()
for ((i = ${#headers[@]} - 1; i >= 0; i--)); do rev+=("${headers[i]}"); done
headers=("${rev[@]}")
[[ $(fp "$tmp/base") == "$base" ]] || fail "the fingerprint depends on argument order"
echo PASS
