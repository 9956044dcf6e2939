# make status: one line per lab (grade_report --status), with each lab file's SHA-256 now, so that
# "changed since its last grade" compares the file's content with what was graded (check.cmake
# keeps RESULTS/stageK.lab-sha256), not the file's time. Grades nothing; about a second.
#   cmake -DREPORT=<grade_report> -DRESULTS=<build/grade> -DCONFIG=<grading.conf> -DRELEASED=1,2,3
#         -DLABS=<labs folder> -DKIT_JSON=<build/kit.json> -P status.cmake
cmake_minimum_required(VERSION 3.19) # string(JSON)
string(REPLACE "," ";" released "${RELEASED}")
set(hashes "")
if(EXISTS "${KIT_JSON}")
  file(READ "${KIT_JSON}" kit)
  string(JSON count LENGTH "${kit}" stages)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON k GET "${kit}" stages ${i} number)
    string(JSON lab GET "${kit}" stages ${i} file)
    if(k IN_LIST released AND EXISTS "${LABS}/${lab}")
      file(SHA256 "${LABS}/${lab}" hash)
      list(APPEND hashes "${k}=${hash}")
    endif()
  endforeach()
endif()
set(by_content "")
if(hashes)
  string(JOIN "," hashes ${hashes})
  set(by_content --lab-hashes "${hashes}")
endif()
execute_process(COMMAND "${REPORT}" --results "${RESULTS}" --config "${CONFIG}" --stages "${RELEASED}"
                        --status "${LABS}" ${by_content}
                RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "grade_report --status failed (${failed})")
endif()
