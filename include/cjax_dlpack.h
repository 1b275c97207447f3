/* cjax_dlpack.h — DLPack's C ABI, as the DLPack project publishes it
 * (dlpack.h, version 1.0), for programs that exchange tensors with cjax
 * (cj_from_dlpack, cj_to_dlpack in cjax.h) and have no dlpack.h of their
 * own. It is a description of a fixed binary layout, written for cjax:
 * include the project's own dlpack/dlpack.h instead whenever you have it
 * (Debian: libdlpack-dev) — both describe the same structs.
 *
 * If dlpack.h was included first, this header adds nothing, except the
 * versioned struct (DLPack 1.0) when that dlpack.h is older (0.x, as
 * Debian's 0.6 is). Included first, it defines dlpack.h's include guard,
 * so a later dlpack.h is skipped rather than redefining the types. */
#ifndef CJAX_DLPACK_H
#define CJAX_DLPACK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0
#define DLPACK_VERSION 100
#define DLPACK_ABI_VERSION 1

typedef enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U
} DLDataTypeCode;

/* code (a DLDataTypeCode), bits per lane, lanes (1 for scalars) */
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/* shape and strides have ndim entries; strides in elements, NULL for
 * compact row-major; the first element at (char *)data + byte_offset. */
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
#endif /* DLPACK_DLPACK_H_ */

#ifndef DLPACK_FLAG_BITMASK_READ_ONLY /* DLPack 1.0's additions */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#endif

#ifdef __cplusplus
}
#endif
#endif
