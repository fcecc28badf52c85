# dpt-spmv driven as a user would drive it, checking the command-line contract: exit status 2, a one-line
# "FILE:LINE:" error and no output file for bad input; the right y, written in Matrix Market, for good input.
#
#   cmake -DAPP=path/to/dpt-spmv -DDATA_DIR=data/matrices -DWORK_DIR=scratch [-DFUSED_KERNEL=ON] -P app_test.cmake
#
# FUSED_KERNEL (CUDA builds): dpt-spmv also runs dpt::kernels::spmv, and every matrix of data/ is checked with it.

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(failures 0)

function(fail message)
  message(SEND_ERROR "${message}")
endfunction()

# run(EXPECT status ARGS args... [STDERR regex] [STDOUT regex])
function(run)
  cmake_parse_arguments(RUN "" "EXPECT;STDERR;STDOUT" "ARGS" ${ARGN})
  execute_process(COMMAND "${APP}" ${RUN_ARGS} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " shown "${RUN_ARGS}")
  message(STATUS "dpt-spmv ${shown} -> ${status}\n${out}${err}")
  if(NOT status STREQUAL RUN_EXPECT)
    fail("dpt-spmv ${shown}: exit status ${status}, expected ${RUN_EXPECT}")
  endif()
  if(RUN_STDERR AND NOT err MATCHES "${RUN_STDERR}")
    fail("dpt-spmv ${shown}: stderr does not match '${RUN_STDERR}'")
  endif()
  if(RUN_STDOUT AND NOT out MATCHES "${RUN_STDOUT}")
    fail("dpt-spmv ${shown}: stdout does not match '${RUN_STDOUT}'")
  endif()
  if(RUN_EXPECT STREQUAL "2")
    string(REGEX MATCHALL "\n" newlines "${err}")
    list(LENGTH newlines lines)
    if(NOT lines EQUAL 1)
      fail("dpt-spmv ${shown}: the error should be one line, got ${lines}")
    endif()
  endif()
endfunction()

function(expect_no_output path)
  file(GLOB leftovers "${path}*")
  if(leftovers)
    fail("output left behind after an error: ${leftovers}")
  endif()
endfunction()

# The lecture's matrix and x = [1, 2, 3, 4]: y = [6, 4, 12, 54].
file(WRITE "${WORK_DIR}/lecture.mtx" "%%MatrixMarket matrix coordinate real general\n% the lecture's example\n4 4 7\n"
     "1 1 3\n1 3 1\n2 2 2\n3 3 4\n4 2 2\n4 3 6\n4 4 8\n")
file(WRITE "${WORK_DIR}/x.mtx" "%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n")

# A CUDA build that cannot run here (no GPU, or no driver) says "error: no CUDA device"; the test then says
# "skipped: no device", which ctest counts as skipped. Any other failure, a CUDA error too, fails below.
execute_process(COMMAND "${APP}" "${WORK_DIR}/lecture.mtx" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0 AND "${out}${err}" MATCHES "error: no CUDA device")
  message("skipped: no device")
  return()
endif()

# Bad input: each exits 2 with "FILE:LINE:" and leaves no y behind.
file(WRITE "${WORK_DIR}/bad.mtx" "%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 3\n5 1 1\n")
run(EXPECT 2 ARGS "${WORK_DIR}/bad.mtx" --out "${WORK_DIR}/y_bad.mtx" STDERR "bad.mtx:4: row index '5' is out of range")
expect_no_output("${WORK_DIR}/y_bad.mtx")

file(WRITE "${WORK_DIR}/x_nan.mtx" "%%MatrixMarket matrix array real general\n4 1\n1\n2\nnan\n4\n")
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --x "${WORK_DIR}/x_nan.mtx" --out "${WORK_DIR}/y_nan.mtx"
    STDERR "x_nan.mtx:5: value 'nan' is not finite")
expect_no_output("${WORK_DIR}/y_nan.mtx")

file(WRITE "${WORK_DIR}/x_short.mtx" "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n")
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --x "${WORK_DIR}/x_short.mtx" --out "${WORK_DIR}/y_short.mtx"
    STDERR "x_short.mtx:2: the vector has 3 entries, expected 4")
expect_no_output("${WORK_DIR}/y_short.mtx")

file(WRITE "${WORK_DIR}/huge.mtx" "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e39\n")
run(EXPECT 0 ARGS "${WORK_DIR}/huge.mtx" --repeat 1 STDOUT "2 x 2")
run(EXPECT 2 ARGS "${WORK_DIR}/huge.mtx" --precision float --out "${WORK_DIR}/y_huge.mtx"
    STDERR "huge.mtx:4: value '1e39' overflows a float \\(use --precision double\\)")
expect_no_output("${WORK_DIR}/y_huge.mtx")

# A y that overflows is bad input naming its row, with or without --check, and leaves no y behind: not a
# --check failure (exit 1) nor a write error. A row is refused when its positive (or negative) terms sum past
# the precision's range, since the sums may meet in any order.
file(WRITE "${WORK_DIR}/overflow.mtx" "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1e308\n1 2 1e308\n")
string(CONCAT overflow_error "overflow.mtx: row 1 of y = A\\*x overflows double: "
       "its positive terms a_ij\\*x_j sum past 1.8e\\+308\n")
run(EXPECT 2 ARGS "${WORK_DIR}/overflow.mtx" --check --out "${WORK_DIR}/y_overflow.mtx" STDERR "${overflow_error}")
expect_no_output("${WORK_DIR}/y_overflow.mtx")
run(EXPECT 2 ARGS "${WORK_DIR}/overflow.mtx" --out "${WORK_DIR}/y_overflow.mtx" STDERR "${overflow_error}")
expect_no_output("${WORK_DIR}/y_overflow.mtx")
file(WRITE "${WORK_DIR}/overflow_negative.mtx"
     "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 1 -1e308\n2 2 1e308\n")
file(WRITE "${WORK_DIR}/x_minus.mtx" "%%MatrixMarket matrix array real general\n2 1\n1\n-1\n")
run(EXPECT 2 ARGS "${WORK_DIR}/overflow_negative.mtx" --x "${WORK_DIR}/x_minus.mtx" --check
    --out "${WORK_DIR}/y_neg.mtx"
    STDERR "overflow_negative.mtx: row 2 of y = A\\*x overflows double: its negative terms a_ij\\*x_j sum past -1.8e")
expect_no_output("${WORK_DIR}/y_neg.mtx")
# row 1 overflows through the mirror image of its off-diagonal entry
file(WRITE "${WORK_DIR}/overflow_symmetric.mtx"
     "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1e308\n2 1 1e308\n")
run(EXPECT 2 ARGS "${WORK_DIR}/overflow_symmetric.mtx" --check
    STDERR "overflow_symmetric.mtx: row 1 of y = A\\*x overflows double")
# [1e308, -1e308] may be summed in either order: no overflow, and --check passes
file(WRITE "${WORK_DIR}/cancel.mtx" "%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 1e308\n1 2 -1e308\n")
run(EXPECT 0 ARGS "${WORK_DIR}/cancel.mtx" --check --repeat 1 STDOUT ": ok")
# float: 3e38 + 3e38 overflows float, not double (where --check passes)
file(WRITE "${WORK_DIR}/overflow_float.mtx"
     "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 3e38\n1 2 3e38\n")
string(CONCAT float_error "overflow_float.mtx: row 1 of y = A\\*x overflows float: "
       "its positive terms a_ij\\*x_j sum to 6e\\+38 \\(use --precision double\\)")
run(EXPECT 2 ARGS "${WORK_DIR}/overflow_float.mtx" --precision float --check --out "${WORK_DIR}/y_overflow_float.mtx"
    STDERR "${float_error}")
expect_no_output("${WORK_DIR}/y_overflow_float.mtx")
run(EXPECT 0 ARGS "${WORK_DIR}/overflow_float.mtx" --check --repeat 1 STDOUT ": ok")
# The terms sum to just under float's limit (FLT_MAX + 0.375 ulp), but a*x rounds up to FLT_MAX and adding
# 2^103 then overflows: exit 2 naming the row (or, where a*x + 2^103 is fused into one rounding, y = FLT_MAX and
# exit 0); never 1, the check failure or write error it was.
file(WRITE "${WORK_DIR}/edge.mtx"
     "%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 1.70155868e+38\n1 2 1.0141204801825835e31\n")
file(WRITE "${WORK_DIR}/x_edge.mtx" "%%MatrixMarket matrix array real general\n2 1\n1.99982727\n1\n")
execute_process(COMMAND "${APP}" "${WORK_DIR}/edge.mtx" --x "${WORK_DIR}/x_edge.mtx" --precision float --check
                        --repeat 1 --out "${WORK_DIR}/y_edge.mtx"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "dpt-spmv edge.mtx --precision float -> ${status}\n${err}")
if(status STREQUAL "2")
  if(NOT err MATCHES "edge.mtx: row 1 of y = A\\*x overflows float once rounded \\(use --precision double\\)\n$")
    fail("dpt-spmv edge.mtx: stderr '${err}'")
  endif()
  expect_no_output("${WORK_DIR}/y_edge.mtx")
elseif(NOT status STREQUAL "0")
  fail("dpt-spmv edge.mtx --precision float: exit status ${status}, expected 2 (or 0 with fused a*x + b)")
endif()

file(WRITE "${WORK_DIR}/complex.mtx" "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n")
run(EXPECT 2 ARGS "${WORK_DIR}/complex.mtx" --check STDERR "complex.mtx:1: complex matrices are not supported")
run(EXPECT 2 ARGS "${WORK_DIR}/missing.mtx" STDERR "missing.mtx: cannot open")
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --x-ones --x-random 3 STDERR "exclude each other")
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --precision half STDERR "--precision must be double or float")
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --repeat 0 STDERR "--repeat must be between")
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --bogus STDERR "unknown option --bogus")
run(EXPECT 2 ARGS STDERR "expected one MATRIX.mtx argument")
run(EXPECT 0 ARGS --help STDOUT "usage: dpt-spmv MATRIX.mtx")

# Sizes beyond any CSR array are an error on the size line, before anything is allocated.
file(WRITE "${WORK_DIR}/vast.mtx" "%%MatrixMarket matrix coordinate real general\n"
     "9223372036854775807 9223372036854775807 0\n")
run(EXPECT 2 ARGS "${WORK_DIR}/vast.mtx" --out "${WORK_DIR}/y_vast.mtx"
    STDERR "vast.mtx:2: row count '9223372036854775807' is too large")
expect_no_output("${WORK_DIR}/y_vast.mtx")

# Sizes that CSR arrays can have but no machine's memory can hold are refused before anything is allocated, with
# what the run needs and what is available (exit status 1: a larger machine could run it). Without the check the
# vectors of length 10^12 fail to allocate (a generic "allocation failed"); at 2·10^9 rows on a 24 GiB machine they
# were allocated and the process was killed when it touched them.
file(WRITE "${WORK_DIR}/wide.mtx" "%%MatrixMarket matrix coordinate real general\n"
     "1000000000000 1000000000000 1\n1 1 1\n")
set(refusal "^dpt-spmv: error: not enough memory: [^\n]*wide.mtx \\(1000000000000 x 1000000000000, 1 stored entry\\) ")
string(APPEND refusal "needs at least [0-9.]+ TiB of (host )?memory, [0-9.]+ [KMGT]iB is available\n$")
run(EXPECT 1 ARGS "${WORK_DIR}/wide.mtx" --out "${WORK_DIR}/y_wide.mtx" STDERR "${refusal}")
expect_no_output("${WORK_DIR}/y_wide.mtx")

# Float's largest value, as printed with 9 digits, is a float.
file(WRITE "${WORK_DIR}/flt_max.mtx" "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 3.40282347e+38\n")
run(EXPECT 0 ARGS "${WORK_DIR}/flt_max.mtx" --precision float --repeat 1 STDOUT "1 x 1")

# Output paths: an empty value, a directory or a missing directory is bad input; links are written through,
# devices directly, and a device that cannot take the data is an error.
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --out= STDERR "option --out needs a value")
# (before any work: nothing on stdout)
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --out "${WORK_DIR}" STDERR "app_dpt_spmv: is a directory" STDOUT "^$")
run(EXPECT 2 ARGS "${WORK_DIR}/lecture.mtx" --out "${WORK_DIR}/missing/y.mtx" STDERR "missing/y.mtx: .*directory"
    STDOUT "^$")
file(WRITE "${WORK_DIR}/real.txt" "old")
file(CREATE_LINK real.txt "${WORK_DIR}/link.mtx" SYMBOLIC)
run(EXPECT 0 ARGS "${WORK_DIR}/lecture.mtx" --x "${WORK_DIR}/x.mtx" --repeat 1 --out "${WORK_DIR}/link.mtx")
file(READ "${WORK_DIR}/real.txt" real)
if(NOT IS_SYMLINK "${WORK_DIR}/link.mtx" OR NOT real MATCHES "\n4 1\n6\n4\n12\n54\n$")
  fail("--out through a link: the link was replaced or its file not written ('${real}')")
endif()
run(EXPECT 0 ARGS "${WORK_DIR}/lecture.mtx" --x "${WORK_DIR}/x.mtx" --repeat 1 --out /dev/stdout
    STDOUT "%%MatrixMarket matrix array real general\n[^\n]*\n4 1\n6\n4\n12\n54\n")
run(EXPECT 0 ARGS "${WORK_DIR}/lecture.mtx" --repeat 1 --out /dev/null)
execute_process(COMMAND test -c /dev/null RESULT_VARIABLE null_status)
if(NOT null_status EQUAL 0)
  fail("--out /dev/null: /dev/null is no longer a character device")
endif()
run(EXPECT 1 ARGS "${WORK_DIR}/lecture.mtx" --repeat 1 --out /dev/full STDERR "/dev/full: writing failed")

# Good input: the lecture's y, written exactly.
run(EXPECT 0 ARGS "${WORK_DIR}/lecture.mtx" --x "${WORK_DIR}/x.mtx" --check --repeat 3 --out "${WORK_DIR}/y.mtx"
    STDOUT "4 x 4.*7 stored, 7 expanded.*GFLOP/s.*GB/s.*max relative error 0.000e\\+00.*: ok")
file(STRINGS "${WORK_DIR}/y.mtx" y_lines)
set(expected_lines "%%MatrixMarket matrix array real general" "4 1" "6" "4" "12" "54")
list(FILTER y_lines EXCLUDE REGEX "^%[^%]")
if(NOT y_lines STREQUAL expected_lines)
  fail("y.mtx holds '${y_lines}', expected '${expected_lines}'")
endif()

# A real symmetric matrix in float with a random x: the check passes and y has one value per row.
run(EXPECT 0 ARGS "${DATA_DIR}/bcsstk01.mtx" --x-random 42 --precision float --check --repeat 2
    --out "${WORK_DIR}/y_bcsstk01.mtx" STDOUT "48 x 48.*224 stored, 400 expanded.*float values.*: ok")
file(STRINGS "${WORK_DIR}/y_bcsstk01.mtx" y_lines)
list(FILTER y_lines EXCLUDE REGEX "^%")
list(LENGTH y_lines count)
if(NOT count EQUAL 49)
  fail("y_bcsstk01.mtx has ${count} non-comment lines, expected the size line and 48 values")
endif()

# The rectangular LP matrix with empty rows, including its last two.
run(EXPECT 0 ARGS "${DATA_DIR}/lp_ship04l.mtx" --check --repeat 1 STDOUT "402 x 2166.*: ok")

# CUDA builds check the fused kernel's y too, on every matrix of data/.
if(FUSED_KERNEL)
  file(GLOB matrices "${DATA_DIR}/*.mtx")
  foreach(matrix IN LISTS matrices)
    run(EXPECT 0 ARGS "${matrix}" --x-random 7 --check --repeat 1 STDOUT "check fused:[^\n]*: ok")
  endforeach()
endif()
