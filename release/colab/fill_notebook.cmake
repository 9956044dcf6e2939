# The edition's Colab notebook, included by release/make_release.cmake once the edition's README.md
# is written: copies release/colab/reduction_lab.ipynb (make_notebook.py writes it) to
# DEST/colab/reduction_lab.ipynb and fills its placeholders, and the README's:
#   @KIT_COLAB_LINK@      the "Open in Colab" badge linking to COLAB_URL (the cache variable
#                         KIT_COLAB_URL: https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/colab/reduction_lab.ipynb
#                         where the edition is a GitHub repository); without one, the README says
#                         how to open the notebook by hand (File > Upload notebook in Colab) and
#                         the notebook has no link
#   @KIT_EDITION_SOURCE@  where a fresh Colab runtime gets the edition: COLAB_EDITION (the cache
#                         variable KIT_COLAB_EDITION: a git URL, or the address of the edition's
#                         .tar.gz), else the GitHub repository of COLAB_URL (https://github.com/OWNER/REPO.git#BRANCH);
#                         empty: the notebook asks for the tarball (Drive, or an upload)
# Both go into JSON strings and Markdown as they are: an address with a quote, a backslash or a
# blank is refused.
foreach(var SOURCE DEST)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "fill_notebook.cmake: ${var} is not set (include it from make_release.cmake)")
  endif()
endforeach()
foreach(var COLAB_URL COLAB_EDITION)
  if(NOT DEFINED ${var})
    set(${var} "")
  endif()
  if(NOT "${${var}}" STREQUAL "" AND NOT "${${var}}" MATCHES "^(https?|git)://[^\"\\\\ \t\n<>()]+$")
    message(FATAL_ERROR "make_release.cmake: KIT_${var} '${${var}}' is not an address (https://...)")
  endif()
endforeach()

if(COLAB_URL)
  set(colab_link "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](${COLAB_URL})")
  set(readme_link "${colab_link}")
else()
  set(colab_link "")
  set(readme_link "To open it in Colab: https://colab.research.google.com, File > Upload notebook, then choose `colab/reduction_lab.ipynb` of your edition.")
endif()
set(edition_source "${COLAB_EDITION}")
if(NOT edition_source AND COLAB_URL MATCHES "^https://colab\\.research\\.google\\.com/github/([^/]+)/([^/]+)/blob/([^/]+)/")
  set(edition_source "https://github.com/${CMAKE_MATCH_1}/${CMAKE_MATCH_2}.git#${CMAKE_MATCH_3}")
endif()

file(READ "${SOURCE}/release/colab/reduction_lab.ipynb" notebook)
foreach(placeholder @KIT_COLAB_LINK@ @KIT_EDITION_SOURCE@)
  string(FIND "${notebook}" "${placeholder}" at)
  if(at LESS 0)
    message(FATAL_ERROR "make_release.cmake: release/colab/reduction_lab.ipynb has no ${placeholder}")
  endif()
endforeach()
string(REPLACE "@KIT_COLAB_LINK@" "${colab_link}" notebook "${notebook}")
string(REPLACE "@KIT_EDITION_SOURCE@" "${edition_source}" notebook "${notebook}")
file(WRITE "${DEST}/colab/reduction_lab.ipynb" "${notebook}")

file(READ "${DEST}/README.md" readme)
string(REPLACE "@KIT_COLAB_LINK@" "${readme_link}" readme "${readme}")
file(WRITE "${DEST}/README.md" "${readme}")
