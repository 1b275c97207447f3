# FindCjaxLapack.cmake — optional LAPACK for cjax's factorisations.
#
# src/runtime/linalg_kernels.c calls LAPACK's ?potrf/?getrf, linalg_eigh.c
# ?syevd and linalg_svd.c ?gesdd for large single matrices when compiled
# with CJAX_HAVE_LAPACK, and its built-in kernels
# otherwise (and always for batches of small matrices). This module never
# fails the configure step: cjax builds and passes its tests without LAPACK.
# Option CJAX_LAPACK (default ON): OFF skips the search.
#
# Sets:
#   CJAX_LAPACK_FOUND      TRUE when a library providing dpotrf_, dgetrf_,
#                          dsyevd_ and dgesdd_
#                          was found and a test program calling them links
#   CJAX_LAPACK_LIBRARIES  what to link
#
# Search order: OpenBLAS (which carries LAPACK) when the BLAS module found
# it, then a library named lapack (Debian's liblapack-dev, the reference
# implementation or whatever the alternatives system points it at).

include_guard(GLOBAL)
include(CheckCSourceCompiles)

set(CJAX_LAPACK_FOUND FALSE)
set(CJAX_LAPACK_LIBRARIES "")

set(_cjax_lapack_candidates "")
if(CJAX_BLAS_FOUND)
  list(APPEND _cjax_lapack_candidates "${CJAX_BLAS_LIBRARIES}")
endif()
find_library(CJAX_LAPACK_LIBRARY NAMES lapack)
if(CJAX_LAPACK_LIBRARY)
  list(APPEND _cjax_lapack_candidates "${CJAX_LAPACK_LIBRARY}")
endif()

set(_cjax_lapack_probe "
#include <stddef.h>
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *, const int *,
             int *, const int *, int *, size_t, size_t);
void dgesdd_(const char *, const int *, const int *, double *, const int *, double *, double *, const int *,
             double *, const int *, double *, const int *, int *, int *, size_t);
int main(int argc, char **argv) { double a = 4; int n = 1, info = 0, piv = 0;
  dpotrf_(\"U\", &n, &a, &n, &info, 1); dgetrf_(&n, &n, &a, &n, &piv, &info);
  if (argc > 5) { dsyevd_(\"N\", \"U\", &n, &a, &n, &a, &a, &n, &piv, &n, &info, 1, 1);
    dgesdd_(\"N\", &n, &n, &a, &n, &a, &a, &n, &a, &n, &a, &n, &piv, &info, 1); }
  (void)argv; return info; }")

set(_cjax_i 0)
foreach(_lib IN LISTS _cjax_lapack_candidates)
  if(NOT CJAX_LAPACK_FOUND)
    set(CMAKE_REQUIRED_LIBRARIES ${_lib} m)
    set(CMAKE_REQUIRED_QUIET ON)
    check_c_source_compiles("${_cjax_lapack_probe}" CJAX_LAPACK_LINKS_${_cjax_i})
    unset(CMAKE_REQUIRED_LIBRARIES)
    unset(CMAKE_REQUIRED_QUIET)
    if(CJAX_LAPACK_LINKS_${_cjax_i})
      set(CJAX_LAPACK_FOUND TRUE)
      set(CJAX_LAPACK_LIBRARIES ${_lib})
    endif()
  endif()
  math(EXPR _cjax_i "${_cjax_i} + 1")
endforeach()

if(CJAX_LAPACK_FOUND)
  message(STATUS "cjax: LAPACK for factorisations: ${CJAX_LAPACK_LIBRARIES}")
else()
  message(STATUS "cjax: no LAPACK found; built-in factorisation kernels only")
endif()
