/*
 * errors.cpp: CUDA's error names and strings (CUDA's own text), and the layer's error
 * reports. The last error itself is emu's (emu_set_error, cudaGetLastError), per host
 * thread as in CUDA.
 */
#include <cstdarg>
#include <cstdio>
#include <string>

#include "internal.h"
#include "shmemu/pgas.h"

namespace {

struct error_text {
    cudaError_t code;
    const char *name;
    const char *text;
};

#define E_(code, text) {code, #code, text}
const error_text errors[] = {
    E_(cudaSuccess, "no error"),
    E_(cudaErrorInvalidValue, "invalid argument"),
    E_(cudaErrorMemoryAllocation, "out of memory"),
    E_(cudaErrorInitializationError, "initialization error"),
    E_(cudaErrorCudartUnloading, "driver shutting down"),
    E_(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    E_(cudaErrorInvalidSymbol, "invalid device symbol"),
    E_(cudaErrorInvalidHostPointer, "invalid host pointer"),
    E_(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    E_(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    E_(cudaErrorInsufficientDriver,
       "CUDA driver version is insufficient for CUDA runtime version"),
    E_(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    E_(cudaErrorInvalidDeviceFunction, "invalid device function"),
    E_(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    E_(cudaErrorInvalidDevice, "invalid device ordinal"),
    E_(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
    E_(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device"),
    E_(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    E_(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    E_(cudaErrorSymbolNotFound, "named symbol not found"),
    E_(cudaErrorNotReady, "device not ready"),
    E_(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    E_(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    E_(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    E_(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    E_(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    E_(cudaErrorAssert, "device-side assert triggered"),
    E_(cudaErrorHostMemoryAlreadyRegistered,
       "part or all of the requested memory range is already mapped"),
    E_(cudaErrorHostMemoryNotRegistered,
       "pointer does not correspond to a registered memory region"),
    E_(cudaErrorLaunchFailure, "unspecified launch failure"),
    E_(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    E_(cudaErrorNotPermitted, "operation not permitted"),
    E_(cudaErrorNotSupported, "operation not supported"),
    E_(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    E_(cudaErrorStreamCaptureInvalidated,
       "operation failed due to a previous error during capture"),
    E_(cudaErrorStreamCaptureMerge,
       "operation would result in a merge of separate capture sequences"),
    E_(cudaErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began"),
    E_(cudaErrorStreamCaptureUnjoined, "capturing stream has unjoined work"),
    E_(cudaErrorStreamCaptureIsolation, "dependency created on uncaptured work in another stream"),
    E_(cudaErrorStreamCaptureImplicit,
       "operation would make the legacy stream depend on a capturing blocking stream"),
    E_(cudaErrorCapturedEvent,
       "operation not permitted on an event last recorded in a capturing stream"),
    E_(cudaErrorStreamCaptureWrongThread,
       "attempt to terminate a thread-local capture sequence from another thread"),
    E_(cudaErrorGraphExecUpdateFailure,
       "the graph update was not performed because it included changes which violated "
       "constraints specific to instantiated graph update"),
    E_(cudaErrorUnknown, "unknown error"),
};
#undef E_

const error_text *find(cudaError_t e)
{
    for (const error_text &t : errors)
        if (t.code == e)
            return &t;
    return nullptr;
}

} // namespace

extern "C" const char *cudaGetErrorName(cudaError_t error)
{
    const error_text *t = find(error);
    return t != nullptr ? t->name : "cudaErrorUnknown";
}

extern "C" const char *shmemu_cuda_error_string(cudaError_t error)
{
    const error_text *t = find(error);
    return t != nullptr ? t->text : "unknown error";
}

namespace shmemu_cuda {
namespace detail {

cudaError_t fail(cudaError_t e, const char *call, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fprintf(stderr, "shmemu: PE %d: %s: %s (%s)\n", shmemu_my_pe(), call, message,
            cudaGetErrorName(e));
    return emu_set_error(e);
}

std::string kernel_key(const char *text)
{
    std::string s;
    int depth = 0;
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '<')
            depth++;
        else if (*c == '>')
            depth--;
        else if (depth == 0 && *c != ' ' && *c != '(' && *c != ')' && *c != '*' && *c != '&')
            s += *c;
    }
    size_t colon = s.rfind("::");
    return colon == std::string::npos ? s : s.substr(colon + 2);
}

} // namespace detail
} // namespace shmemu_cuda
