# FindCjaxBlas.cmake — optional OpenBLAS for cjax's matrix multiply.
#
# The runtime layer's GEMM (src/runtime/gemm.c), which the dot_general
# primitive and generated code call, forwards to cblas_sgemm/cblas_dgemm when
# compiled with CJAX_HAVE_CBLAS and otherwise uses its built-in kernels. This
# module only looks for OpenBLAS; it never fails the configure step, so cjax
# builds the same with or without it. Usage from the top-level CMakeLists.txt:
#
#   list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_SOURCE_DIR}/cmake)
#   include(FindCjaxBlas)
#   if(CJAX_BLAS_FOUND)
#     target_compile_definitions(cjax PRIVATE CJAX_HAVE_CBLAS)
#     target_include_directories(cjax PRIVATE ${CJAX_BLAS_INCLUDE_DIRS})
#     target_link_libraries(cjax PRIVATE ${CJAX_BLAS_LIBRARIES})
#   endif()
#
# Sets:
#   CJAX_BLAS_FOUND         TRUE when OpenBLAS and its cblas.h were found and
#                           a test program calling cblas_sgemm links
#   CJAX_BLAS_INCLUDE_DIRS  directories to add so <cblas.h> is OpenBLAS's
#   CJAX_BLAS_LIBRARIES     what to link
# Option CJAX_USE_BLAS (default ON): OFF skips the search (built-in GEMM).
#
# Search order: pkg-config module `openblas` (Debian/Ubuntu put OpenBLAS's
# cblas.h in a per-variant directory that only pkg-config names), then
# find_library(openblas) plus find_path(cblas.h). Only OpenBLAS is accepted:
# the reference BLAS also ships a cblas.h, but its plain loops are far
# slower than the built-in kernels.

include_guard(GLOBAL)

option(CJAX_USE_BLAS "Use OpenBLAS for matrix multiply when it is installed" ON)

set(CJAX_BLAS_FOUND FALSE)
set(CJAX_BLAS_INCLUDE_DIRS "")
set(CJAX_BLAS_LIBRARIES "")

if(CJAX_USE_BLAS)
  set(_cjax_blas_inc "")
  set(_cjax_blas_lib "")

  # 1. pkg-config.
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(_CJAX_PC_OPENBLAS QUIET openblas)
    if(_CJAX_PC_OPENBLAS_FOUND)
      # Full paths of the libraries (LINK_LIBRARIES needs CMake >= 3.12).
      if(_CJAX_PC_OPENBLAS_LINK_LIBRARIES)
        set(_cjax_blas_lib ${_CJAX_PC_OPENBLAS_LINK_LIBRARIES})
      else()
        find_library(_CJAX_PC_OPENBLAS_LIB NAMES openblas
                     HINTS ${_CJAX_PC_OPENBLAS_LIBRARY_DIRS})
        if(_CJAX_PC_OPENBLAS_LIB)
          set(_cjax_blas_lib ${_CJAX_PC_OPENBLAS_LIB})
        endif()
      endif()
      find_path(_CJAX_PC_CBLAS_DIR cblas.h
                HINTS ${_CJAX_PC_OPENBLAS_INCLUDE_DIRS} NO_DEFAULT_PATH)
      if(_CJAX_PC_CBLAS_DIR)
        set(_cjax_blas_inc ${_CJAX_PC_CBLAS_DIR})
      endif()
    endif()
  endif()

  # 2. Plain search, for installs without a .pc file.
  if(NOT _cjax_blas_lib OR NOT _cjax_blas_inc)
    find_library(CJAX_OPENBLAS_LIBRARY NAMES openblas
                 PATH_SUFFIXES openblas-pthread openblas-openmp openblas-serial openblas)
    # Prefer a cblas.h in an OpenBLAS-specific directory over a generic one
    # (which on Debian may belong to the reference BLAS; same API, so either
    # compiles, but keep them matched where possible).
    find_path(CJAX_OPENBLAS_INCLUDE_DIR cblas.h
              PATH_SUFFIXES openblas openblas-pthread openblas-openmp openblas-serial
                            x86_64-linux-gnu/openblas-pthread
                            aarch64-linux-gnu/openblas-pthread)
    if(CJAX_OPENBLAS_LIBRARY AND CJAX_OPENBLAS_INCLUDE_DIR)
      set(_cjax_blas_lib ${CJAX_OPENBLAS_LIBRARY})
      set(_cjax_blas_inc ${CJAX_OPENBLAS_INCLUDE_DIR})
    endif()
  endif()

  # 3. Make sure a program calling cblas_sgemm compiles and links, so a
  #    broken or partial install falls back to the built-in GEMM instead of
  #    failing the build later.
  if(_cjax_blas_lib AND _cjax_blas_inc)
    include(CheckCSourceCompiles)
    include(CMakePushCheckState)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_QUIET TRUE)
    set(CMAKE_REQUIRED_INCLUDES ${_cjax_blas_inc})
    set(CMAKE_REQUIRED_LIBRARIES ${_cjax_blas_lib})
    check_c_source_compiles([=[
#include <cblas.h>
int main(void) {
    float a[1] = {1}, b[1] = {2}, c[1] = {0};
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, a, 1, b, 1,
                0.0f, c, 1);
    return c[0] == 2.0f ? 0 : 1;
}
]=] CJAX_BLAS_LINKS)
    cmake_pop_check_state()
    if(CJAX_BLAS_LINKS)
      set(CJAX_BLAS_FOUND TRUE)
      set(CJAX_BLAS_INCLUDE_DIRS ${_cjax_blas_inc})
      set(CJAX_BLAS_LIBRARIES ${_cjax_blas_lib})
    endif()
  endif()

  if(CJAX_BLAS_FOUND)
    message(STATUS "cjax: GEMM uses OpenBLAS (${CJAX_BLAS_LIBRARIES})")
  else()
    message(STATUS "cjax: OpenBLAS not found, GEMM uses the built-in kernels")
  endif()
  unset(_cjax_blas_inc)
  unset(_cjax_blas_lib)
else()
  message(STATUS "cjax: CJAX_USE_BLAS=OFF, GEMM uses the built-in kernels")
endif()
