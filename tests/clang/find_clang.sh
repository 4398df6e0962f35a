# Sourced by the tests that need Clang 16 or later (clang.unit_tests,
# race_check): sets `compiler`, or ends the test as skipped (exit 77) where
# none is installed (Clang 14 lacks std::source_location, and the race
# check needs Clang 16's trace-loads).
compiler=
for candidate in clang++ clang++-16 clang++-17 clang++-18 clang++-19; do
  command -v "$candidate" > /dev/null || continue
  if (("$("$candidate" -dumpversion | cut -d. -f1)" >= 16)); then
    compiler=$candidate
    break
  fi
done
if [[ -z $compiler ]]; then
  echo "no Clang 16 or later installed (apt-get install clang-16): skipped"
  exit 77
fi
