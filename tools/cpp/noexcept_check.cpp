// noexcept_check.cpp — cjax.hpp built with -fno-exceptions (run by
// tools/test_cpp.sh): nothing throws, errors stay sticky as in C, and the
// context's message names the operation and the shapes.
#include <cjax.hpp>
#include <cstdio>
#include <cstring>
using namespace cjax;

int main() {
    context ctx;
    array x = ones({3}), y = ones({4});
    array z = x + y;                      // fails: the error is recorded
    array w = exp(z) * 2.0;               // error values propagate, no work
    auto f = jit([](array a) { return a + ones({5}); });
    array v = f(x);                       // a failure inside a trace: sticky too
    if (!z.is_error() || !w.is_error() || !v.is_error() || ctx.error() != CJ_ERR_SHAPE ||
        !std::strstr(ctx.error_message().c_str(), "f32[3]") || !std::strstr(ctx.error_message().c_str(), "f32[4]")) {
        std::printf("expected a sticky shape error naming f32[3] and f32[4], got %d: %s\n", ctx.error(),
                    ctx.error_message().c_str());
        return 1;
    }
    ctx.clear_error();
    array ok = f(ones({5}));              // usable again once cleared
    if (ctx.error() != CJ_OK || ok.to_vector<float>()[4] != 2.0f) {
        std::printf("after clear_error: %s\n", ctx.error_message().c_str());
        return 1;
    }
    return 0;
}
