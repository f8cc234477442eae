# SPDX-License-Identifier: BSD-3-Clause
# dpdk_dp_vectors_current: run mk_dp_vectors (OpenSSL) and compare its header with the
# committed dpdk/test/dp_vectors.h.  cmake -DGEN=... -DOUT=... -DREF=... -P dp_vectors_check.cmake
execute_process(COMMAND "${GEN}" header "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mk_dp_vectors failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}" "${REF}" RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "${REF} is not mk_dp_vectors' output: regenerate it with "
                      "'mk_dp_vectors header ${REF}'")
endif()
message(STATUS "dp_vectors.h matches mk_dp_vectors (OpenSSL)")
